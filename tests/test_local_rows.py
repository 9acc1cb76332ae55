"""A small table's file list is collected from the rows the driver holds, in one facade call:
the same rows as PySpark's own ``collect()`` (the oracle: the same JVM DataFrame collected
through Spark), with no SQL execution; anything else is collected as PySpark collects it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import DataFrame, Row, SparkSession

from txlog import DeltaLog
from txlog._gateway import jvm_facade
from txlog._local_rows import _frame_class

pytestmark = pytest.mark.classic_only


def _executions(spark: SparkSession) -> int:
    """SQL executions the session's status store has seen (what the SQL tab lists), once the
    listener bus has delivered every event posted so far."""
    spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty()
    return int(spark._jsparkSession.sharedState().statusStore().executionsCount())


def _golden(fixtures: Path) -> list[Path]:
    return sorted(p.parent for p in (fixtures / "golden").rglob("_delta_log") if p.is_dir())


def test_golden_file_lists_as_spark_collects_them(spark: SparkSession, fixtures: Path) -> None:
    """Every golden table txlog opens: collect() gives Spark's rows (values, field names, types
    by repr), read from the driver, without a SQL execution."""
    compared = 0
    not_local: list[str] = []
    for table in _golden(fixtures):
        try:
            files = DeltaLog.for_table(spark, table).snapshot().all_files()
        except Exception:  # a table meant to fail: test_api and the agreement suites cover it
            continue
        spark_rows = DataFrame(files._jdf, spark).collect()  # PySpark's own collect()
        before = _executions(spark)
        rows = files.collect()
        local = _executions(spark) == before
        assert rows == spark_rows, table.name
        assert [r.__fields__ for r in rows] == [r.__fields__ for r in spark_rows], table.name
        assert repr(rows) == repr(spark_rows), table.name
        compared += 1
        if not local:
            not_local.append(table.name)
    assert compared >= 90
    assert not_local == []  # every golden table txlog opens lists its files on the driver


def test_to_pandas_without_arrow(spark: SparkSession, fixtures: Path) -> None:
    """toPandas() with Arrow off collects through the driver's rows: Spark's frame, no SQL
    execution."""
    pd = pytest.importorskip("pandas")
    table = fixtures / "golden" / "data-reader-partition-values"
    files = DeltaLog.for_table(spark, table).snapshot().all_files()
    arrow = "spark.sql.execution.arrow.pyspark.enabled"
    spark.conf.set(arrow, "false")  # with Arrow, toPandas() collects as Arrow batches
    try:
        before = _executions(spark)
        pdf = files.toPandas()
        assert _executions(spark) == before
        expected = DataFrame(files._jdf, spark).toPandas()
        assert _executions(spark) > before  # the counter sees Spark's collect
    finally:
        spark.conf.unset(arrow)
    assert len(pdf) > 0
    pd.testing.assert_frame_equal(pdf, expected)  # NaN equal to NaN, as a row's values are not


def test_other_plans_collect_as_pyspark_does(spark: SparkSession) -> None:
    """A plan the driver does not hold (here a range) is collected by PySpark; a DataFrame
    derived from the file list is PySpark's own class."""
    frame = _frame_class()(spark.range(3)._jdf, spark, jvm_facade(spark))
    assert frame.collect() == [Row(id=0), Row(id=1), Row(id=2)]
    assert type(frame.where("id > 0")) is not type(frame)
    assert frame.where("id > 0").count() == 2
