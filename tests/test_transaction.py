"""Transactions through the Python API: what txlog commits, delta-rs reads back."""

from __future__ import annotations

import json
from pathlib import Path

import deltalake
import pyarrow as pa
import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from txlog_testing import error_details
import txlog
from txlog import DeltaLog, errors


def _files(spark: SparkSession, names: list[str], part: str):
    rows = [(n, 100 + i, {"d": part}, 1_700_000_000_000, True) for i, n in enumerate(names)]
    return spark.createDataFrame(
        rows, "path string, size long, partitionValues map<string,string>, "
        "modificationTime long, dataChange boolean",
    )  # fmt: skip


def test_create_commit_and_delta_rs_reads_it(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    log = txlog.create_table(spark, path, "id BIGINT, d STRING", partition_by=["d"])
    assert deltalake.DeltaTable(path).version() == 0

    v1 = log.start_transaction().add_files(_files(spark, ["d=a/f1", "d=a/f2"], "a")).commit()
    txn = log.start_transaction()
    old = txn.read_files("partitionValues_parsed.d = 'a'").where(F.col("path") == "d=a/f1")
    v2 = (txn.remove_files(old.select("path", "size", "partitionValues", "dataChange"))
          .add_files(_files(spark, ["d=b/f3"], "b"))
          .set_app_transaction("app", 3)
          .commit("OVERWRITE", {"mode": "Overwrite"}))
    assert (v1, v2) == (1, 2)
    assert txn.result is not None and txn.result.committed and txn.result.attempts == 1

    rs = deltalake.DeltaTable(path)
    assert rs.version() == 2
    assert sorted(rs.file_uris()) == sorted(
        [str(Path(path) / "d=a/f2"), str(Path(path) / "d=b/f3")]
    )
    history = rs.history()
    assert history[0]["operation"] == "OVERWRITE"
    assert history[0]["readVersion"] == 1
    assert rs.metadata().partition_columns == ["d"]
    # The version checksum written on commit agrees with delta-rs's view of version 2.
    assert txn.result.checksum is not None and txn.result.checksum.endswith(
        "00000000000000000002.crc")
    crc = json.loads((Path(path) / "_delta_log" / "00000000000000000002.crc").read_text())
    adds = pa.table(rs.get_add_actions(flatten=True)).to_pylist()
    assert crc["numFiles"] == len(adds) == 2
    assert crc["tableSizeBytes"] == sum(a["size_bytes"] for a in adds)
    assert [t["appId"] for t in crc["setTransactions"]] == ["app"]


def test_read_files_takes_a_column_as_a_sql_condition(spark: SparkSession,
                                                     tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    log = txlog.create_table(spark, path, "id BIGINT, d STRING", partition_by=["d"])
    log.start_transaction().add_files(_files(spark, ["d=a/f1", "d=a/f2"], "a")).commit()
    log.start_transaction().add_files(_files(spark, ["d=b/f3"], "b")).commit()
    txn = log.start_transaction()
    by_column = txn.read_files(F.col("partitionValues_parsed.d") == F.lit("a"))
    by_sql = txn.read_files("partitionValues_parsed.d = 'a'")
    expected = sorted(str(Path(path) / f"d=a/{f}") for f in ("f1", "f2"))  # delta-rs's paths
    rs = [u for u in deltalake.DeltaTable(path).file_uris() if "/d=a/" in u]
    assert sorted(rs) == expected
    for df in (by_column, by_sql):
        assert sorted(str(Path(path) / r.path) for r in df.select("path").collect()) == expected
    assert txn.remove_files(by_column).commit("DELETE") == 3
    assert sorted(deltalake.DeltaTable(path).file_uris()) == [str(Path(path) / "d=b/f3")]


def test_idempotent_commit_returns_none(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    log = txlog.create_table(spark, path, "id BIGINT, d STRING", partition_by=["d"])
    log.start_transaction().set_app_transaction("s", 5).commit()
    txn = log.start_transaction()
    assert txn.txn_version("s") == 5
    assert txn.set_app_transaction("s", 5).commit() is None
    assert txn.result is not None and not txn.result.committed
    assert deltalake.DeltaTable(path).version() == 1


def test_errors_are_typed(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    txlog.create_table(spark, path, "id BIGINT, d STRING", partition_by=["d"])
    with pytest.raises(errors.TableExistsError):
        txlog.create_table(spark, path, "id BIGINT, d STRING")
    log = DeltaLog.for_table(spark, path)
    before = sorted(p.name for p in (tmp_path / "t" / "_delta_log").iterdir())
    bad = spark.createDataFrame([("f", True)], "path string, dataChange boolean")
    with pytest.raises(errors.InvalidCommitError):
        log.start_transaction().add_files(bad).commit()
    with pytest.raises(errors.ProtocolDowngradeError):
        log.start_transaction().upgrade_protocol(1, 1).commit()
    assert sorted(p.name for p in (tmp_path / "t" / "_delta_log").iterdir()) == before
    with pytest.raises(TypeError, match="df"):
        log.start_transaction().add_files("not a frame")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="schema"):
        txlog.create_table(spark, str(tmp_path / "u"), 3)  # type: ignore[arg-type]


@pytest.mark.classic_only
def test_files_given_as_dicts(spark: SparkSession, tmp_path: Path) -> None:
    """add_files / remove_files take a list of dicts (the spec's field names): committed as a
    DataFrame of those rows would be, with no Spark job; a field an add does not have, a value
    of the wrong JSON type, or an entry that is not a dict is refused before anything is
    written."""
    path = str(tmp_path / "t")
    log = txlog.create_table(spark, path, "id BIGINT, d STRING", partition_by=["d"])
    entries = [
        {"path": f"d=a/f{i}", "size": 100 + i, "partitionValues": {"d": "a"},
         "modificationTime": 1_700_000_000_000 + i, "dataChange": True,
         "stats": json.dumps({"numRecords": i + 1})}
        for i in range(2)
    ]  # fmt: skip
    tracker = spark.sparkContext.statusTracker()
    spark.sparkContext.setJobGroup("dicts", "dicts")
    try:
        assert log.start_transaction().add_files(entries).commit() == 1
        jobs = tracker.getJobIdsForGroup("dicts")
    finally:
        spark.sparkContext.setJobGroup("", "")
    assert list(jobs) == []
    rs = deltalake.DeltaTable(path)
    adds = sorted(pa.table(rs.get_add_actions(flatten=True)).to_pylist(), key=lambda a: a["path"])
    assert [(a["path"], a["size_bytes"], a["partition.d"], a["num_records"]) for a in adds] == [
        ("d=a/f0", 100, "a", 1), ("d=a/f1", 101, "a", 2)]  # fmt: skip
    assert log.start_transaction().remove_files(
        [{"path": "d=a/f0", "dataChange": True}]).commit() == 2
    assert deltalake.DeltaTable(path).file_uris() == [str(Path(path) / "d=a/f1")]

    before = sorted(p.name for p in (tmp_path / "t" / "_delta_log").iterdir())
    for bad, says in (
        ({**entries[0], "path": "d=a/g", "modification_time": 1}, "modification_time"),
        ({**entries[0], "path": "d=a/g", "size": "big"}, "size"),
    ):
        with pytest.raises(errors.InvalidCommitError, match=says):
            log.start_transaction().add_files([bad]).commit()
    with pytest.raises(TypeError, match=r"df\[0\]"):
        log.start_transaction().add_files(["d=a/g"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="df"):
        log.start_transaction().add_files([{"path": "d=a/g", "modificationTime": object()}])
    assert sorted(p.name for p in (tmp_path / "t" / "_delta_log").iterdir()) == before


def test_concurrent_append_is_a_typed_conflict(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    log = txlog.create_table(spark, path, "id BIGINT, d STRING", partition_by=["d"],
                             properties={"delta.isolationLevel": "Serializable"})
    slow = log.start_transaction()
    slow.read_files("partitionValues_parsed.d = 'a'")
    slow.add_files(_files(spark, ["d=a/x"], "a"))
    DeltaLog.for_table(spark, path).start_transaction().add_files(
        _files(spark, ["d=a/y"], "a")).commit()
    with pytest.raises(errors.ConcurrentAppendError) as e:
        slow.commit()
    if error_details():
        assert e.value.winning_version == 1


def test_dv_file_removed_as_staged_without_its_dv(spark: SparkSession, fixtures: Path,
                                                 tmp_path: Path) -> None:
    """The issue's reproduction: a file with a deletion vector removed through the documented
    pattern, its DV left out of the staged columns. delta-rs then sees the file gone, and a
    remove of a path that is not live is refused with nothing written."""
    from txlog_testing import copy_table

    table = copy_table(fixtures / "golden/dv-partitioned-with-checkpoint", tmp_path / "t")
    before = pa.table(deltalake.DeltaTable(str(table)).get_add_actions(flatten=True))
    log = DeltaLog.for_table(spark, str(table))
    txn = log.start_transaction()
    victim = txn.read_files().where("deletionVector is not null").limit(1)
    victim = victim.select("path", "size", "partitionValues", "dataChange").collect()[0]
    staged = spark.createDataFrame([victim], "path string, size long, "
                                   "partitionValues map<string,string>, dataChange boolean")
    version = txn.remove_files(staged).commit("DELETE")

    rs = deltalake.DeltaTable(str(table))
    after = pa.table(rs.get_add_actions(flatten=True))
    assert rs.version() == version
    assert after.num_rows == before.num_rows - 1
    name = victim["path"].rsplit("/", 1)[-1]
    assert name in [p.rsplit("/", 1)[-1] for p in before.column("path").to_pylist()]
    assert name not in [p.rsplit("/", 1)[-1] for p in after.column("path").to_pylist()]

    txn = log.start_transaction()
    with pytest.raises(errors.InvalidCommitError, match="not live"):
        txn.remove_files(staged).commit("DELETE")
    assert deltalake.DeltaTable(str(table)).version() == version
