"""``DeltaLog.changes``: the change data feed of a table delta-spark writes (in its own process,
tests/changes_oracle.py, since this session has no delta-spark) against delta-spark's
``table_changes`` of it; by version and by timestamp; bad arguments and the typed error of
versions where the feed was off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from chispa import assert_df_equality
from pyspark.sql import SparkSession

from txlog import DeltaLog
from txlog.errors import ChangeDataNotRecordedError

HERE = Path(__file__).resolve().parent
DELTA_MODULES = [
    "delta-spark_4.2_2.13", "delta-storage", "delta-kernel-api", "delta-kernel-defaults",
    "delta-kernel-unitycatalog",
]


def delta_jars() -> list[str] | None:
    """delta-spark 4.4.0 and what it needs, from the coursier cache sbt fills (the Scala
    suites' oracle); None when absent."""
    root = Path.home() / ".cache/coursier/v1/https/repo1.maven.org/maven2/io/delta"
    jars = [root / m / "4.4.0" / f"{m}-4.4.0.jar" for m in DELTA_MODULES]
    return [str(j) for j in jars] if all(j.is_file() for j in jars) else None


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    jars = delta_jars()
    if jars is None:
        pytest.skip("delta-spark 4.4.0 not in the coursier cache (build/sbt test fills it)")
    work = tmp_path_factory.mktemp("changes")
    run = subprocess.run(
        [sys.executable, str(HERE / "changes_oracle.py"), str(work), ",".join(jars)],
        capture_output=True, text=True, timeout=600, env=dict(os.environ),
    )
    assert run.returncode == 0, run.stderr[-4000:]
    return work


def expected(spark: SparkSession, oracle: Path, name: str):
    return spark.read.parquet(str(oracle / "expected" / name))


@pytest.mark.parametrize("start,end,name", [(0, None, "0_latest"), (1, 3, "1_3"), (2, 2, "2_2")])
def test_changes_as_table_changes(spark: SparkSession, oracle: Path, start: int,
                                  end: int | None, name: str) -> None:
    log = DeltaLog.for_table(spark, oracle / "table")
    ours = log.changes(start=start, end=end)
    assert ours.columns[-3:] == ["_change_type", "_commit_version", "_commit_timestamp"]
    assert_df_equality(ours, expected(spark, oracle, name), ignore_row_order=True,
                       ignore_nullable=True)


def test_changes_by_timestamp(spark: SparkSession, oracle: Path) -> None:
    log = DeltaLog.for_table(spark, oracle / "table")
    # as text in the session time zone, which the timestamps given as text are read in
    history = log.history().selectExpr("version", "CAST(timestamp AS STRING)")
    times = {r[0]: r[1] for r in history.collect()}
    ours = log.changes(start_timestamp=times[1], end_timestamp=times[3])
    assert_df_equality(ours, expected(spark, oracle, "1_3"), ignore_row_order=True,
                       ignore_nullable=True)


def test_change_data_not_recorded(spark: SparkSession, fixtures: Path) -> None:
    log = DeltaLog.for_table(spark, fixtures / "golden/deltalog-getChanges")
    with pytest.raises(ChangeDataNotRecordedError) as info:
        log.changes(start=0)
    assert info.value.error_class == "CHANGE_DATA_NOT_RECORDED"
    assert info.value.version == 0


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
