"""``DeltaLog.changes`` from Python: the change data feed of a table delta-rs writes with the
feed on (inserts, a delete, an update, a merge, an append) equals delta-rs's own reading of it
(``load_cdf``), by version and by timestamp; bad arguments and the typed error of versions where
the feed was off. (delta-spark's ``table_changes`` is compared in the Scala ChangesSuite.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyspark.sql import SparkSession

from test_read import _arrow, _value
from txlog_testing import error_details
from txlog import DeltaLog
from txlog.errors import ChangeDataNotRecordedError, ChangeDataSchemaError


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A partitioned table with the feed on, written by delta-rs: v0 insert, v1 delete, v2
    update, v3 merge (an update and an insert), v4 append."""
    from deltalake import DeltaTable, write_deltalake

    path = tmp_path_factory.mktemp("changes") / "t"
    first = pa.table({"id": pa.array(range(10), pa.int64()), "p": ["a", "b"] * 5,
                      "v": [f"x{i}" for i in range(10)]})
    write_deltalake(str(path), first, partition_by=["p"],
                    configuration={"delta.enableChangeDataFeed": "true"})
    t = DeltaTable(str(path))
    t.delete("id > 7")
    t.update(predicate="id < 2", updates={"v": "'upd'"})
    source = pa.table({"id": pa.array([3, 20], pa.int64()), "p": ["b", "a"], "v": ["m3", "m20"]})
    (t.merge(source, "t.id = s.id", source_alias="s", target_alias="t")
     .when_matched_update_all().when_not_matched_insert_all().execute())
    write_deltalake(str(path), pa.table({"id": pa.array([30], pa.int64()), "p": ["a"],
                                         "v": ["n"]}), mode="append")
    return path


def _rows(t: Any) -> list[str]:
    """Rows keyed by column name (delta-rs puts partition columns last), without
    ``_commit_timestamp``: delta-rs gives the commit's own timestamp, txlog (as delta-spark, with
    which the Scala ChangesSuite compares it) the commit file's modification time; the two can
    differ by a millisecond. :func:`_check_timestamps` checks txlog's."""
    rows = []
    for r in pa.table(t).to_pylist():
        r.pop("_commit_timestamp")
        rows.append(repr(sorted((k, _value(x)) for k, x in r.items())))
    return sorted(rows)


def _check_timestamps(spark: SparkSession, table: Path, changes: Any) -> None:
    """Every change's ``_commit_timestamp`` is its version's timestamp in the history."""
    history = DeltaLog.for_table(spark, str(table)).history()
    wrong = (changes.join(history, changes["_commit_version"] == history["version"])
             .where("_commit_timestamp <> timestamp").count())
    assert wrong == 0


def _theirs(path: Path, start: int, end: int | None) -> list[str]:
    from deltalake import DeltaTable

    return _rows(DeltaTable(str(path)).load_cdf(starting_version=start, ending_version=end)
                 .read_all())


@pytest.mark.parametrize("start,end", [(0, None), (1, 3), (2, 2), (3, 4)])
def test_changes_as_delta_rs_reads_them(spark: SparkSession, table: Path, start: int,
                                        end: int | None) -> None:
    ours = DeltaLog.for_table(spark, str(table)).changes(start=start, end=end)
    assert ours.columns[-3:] == ["_change_type", "_commit_version", "_commit_timestamp"]
    rows = _rows(_arrow(ours))
    assert rows == _theirs(table, start, end)
    assert rows, "no changes read"
    _check_timestamps(spark, table, ours)


def test_changes_by_timestamp(spark: SparkSession, table: Path) -> None:
    log = DeltaLog.for_table(spark, str(table))
    # as text in the session time zone, which timestamps given as text are read in
    history = log.history().selectExpr("version", "CAST(timestamp AS STRING)")
    times = {r[0]: r[1] for r in history.collect()}
    ours = log.changes(start_timestamp=times[1], end_timestamp=times[3])
    assert _rows(_arrow(ours)) == _theirs(table, 1, 3)
    by_source = (spark.read.format("txlog").option("readChangeFeed", "true")
                 .option("startingVersion", 1).option("endingVersion", 3).load(str(table)))
    assert _rows(_arrow(by_source)) == _theirs(table, 1, 3)


def test_change_data_not_recorded(spark: SparkSession, fixtures: Path) -> None:
    log = DeltaLog.for_table(spark, fixtures / "golden/deltalog-getChanges")
    with pytest.raises(ChangeDataNotRecordedError) as info:
        log.changes(start=0)
    assert info.value.error_class == "CHANGE_DATA_NOT_RECORDED"
    if error_details():
        assert info.value.version == 0


def test_change_data_schema_incompatible(spark: SparkSession, tmp_path: Path) -> None:
    """A column's type changed inside the range (an overwrite of the schema, by delta-rs): the
    end version's schema cannot read the earlier rows, so a range holding the change is
    refused; the range before it reads."""
    from deltalake import write_deltalake

    path = tmp_path / "t"
    write_deltalake(str(path), pa.table({"id": pa.array([1], pa.int64())}),
                    configuration={"delta.enableChangeDataFeed": "true"})
    write_deltalake(str(path), pa.table({"id": ["one"]}), mode="overwrite",
                    schema_mode="overwrite")
    log = DeltaLog.for_table(spark, str(path))
    with pytest.raises(ChangeDataSchemaError) as info:
        log.changes(start=0)
    assert info.value.error_class == "CHANGE_DATA_SCHEMA_INCOMPATIBLE"
    if error_details():
        assert info.value.version == 1
    assert "BIGINT to STRING" in info.value.message
    assert log.changes(start=0, end=0).count() == 1  # the range before the change reads


@pytest.mark.parametrize("kwargs,error,word", [
    ({}, ValueError, "start"),
    ({"start": 1, "start_timestamp": "2024-01-01"}, ValueError, "start_timestamp"),
    ({"start": 1, "end": 2, "end_timestamp": "2024-01-01"}, ValueError, "end_timestamp"),
    ({"start": -1}, ValueError, "start"),
    ({"start": "1"}, TypeError, "start"),
    ({"start": True}, TypeError, "start"),
    ({"start": 0, "end": 1.5}, TypeError, "end"),
    ({"start": 3, "end": 2}, ValueError, "end"),
    ({"start_timestamp": 5}, TypeError, "start_timestamp"),
    ({"start": 0, "end_timestamp": " "}, ValueError, "end_timestamp"),
])
def test_bad_arguments(spark: SparkSession, fixtures: Path, kwargs: dict, error: type,
                       word: str) -> None:
    log = DeltaLog.for_table(spark, fixtures / "golden/deltalog-getChanges")
    with pytest.raises(error, match=word):
        log.changes(**kwargs)
