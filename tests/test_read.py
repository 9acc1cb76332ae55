"""Reading a table's rows from Python: ``DeltaLog.read``, ``Snapshot.to_df`` and
``spark.read.format("txlog")`` give the rows delta-rs (the ``deltalake`` package) reads, on the
fixtures with data files; bad arguments are refused before anything is read.

delta-spark's rows of every fixture at every version are compared in the Scala suite
(RowAgreementSuite); here delta-rs is asked live (it reads these small tables in milliseconds).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any, Iterator

import pyarrow as pa
import pytest
from chispa import assert_df_equality
from pyspark.sql import DataFrame, SparkSession

from txlog import DeltaLog
from txlog_testing import FIXTURES_MISSING, FIXTURES_ROOT, fixtures_available, is_dataframe

# Tables with data files, each of another kind: partitions of many types, nested and complex
# types, dates and timestamps, timestamps without zone, escaped characters, time travel. delta-rs
# (1.6.6) refuses tables with deletion vectors and reads every column of the column-mapping
# fixtures as null: those are compared with delta-spark only (RowAgreementSuite).
TABLES = [
    "golden/data-reader-primitives",
    "golden/data-reader-array-primitives",
    "golden/data-reader-map",
    "golden/data-reader-nested-struct",
    "golden/data-reader-partition-values",
    "golden/data-reader-date-types-UTC",
    "golden/data-reader-timestamp_ntz",
    "golden/data-reader-escaped-chars",
    "golden/data-reader-array-complex-objects",
    "golden/time-travel-partition-changes-b",
    "golden/hive/deltatbl-partition-prune",
]


@pytest.fixture(scope="module", autouse=True)
def utc_session(spark: SparkSession) -> Iterator[None]:
    """Timestamp partition values carry no zone: txlog (as delta-spark) reads them in the
    session time zone, delta-rs as UTC. Compare in a UTC session."""
    before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    yield
    spark.conf.set("spark.sql.session.timeZone", before)


def _value(v: Any) -> Any:
    """A value in a form both readers' Arrow values share: aware timestamps in UTC, maps
    (lists of pairs) sorted, nested values recursively."""
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(dt.timezone.utc)
    if isinstance(v, dict):
        return {k: _value(x) for k, x in v.items()}
    if isinstance(v, list):
        items = [_value(x) for x in v]
        if items and all(isinstance(x, tuple) and len(x) == 2 for x in items):
            return sorted(items, key=repr)
        return items
    if isinstance(v, tuple):
        return tuple(_value(x) for x in v)
    if isinstance(v, float) and v != v:
        return "NaN"
    if isinstance(v, Decimal):
        return v.normalize()
    return v


def _rows(table: pa.Table) -> list[str]:
    return sorted(repr({k: _value(x) for k, x in r.items()}) for r in table.to_pylist())


def _table_params() -> list[Any]:
    if not fixtures_available():
        return [pytest.param(None, marks=pytest.mark.skip(reason=FIXTURES_MISSING))]
    return [pytest.param(t, id=t) for t in TABLES if (FIXTURES_ROOT / t).is_dir()]


@pytest.mark.parametrize("table", _table_params())
def test_rows_agree_with_delta_rs(spark: SparkSession, table: str) -> None:
    from deltalake import DeltaTable

    root = FIXTURES_ROOT / table
    try:
        theirs = DeltaTable(str(root)).to_pyarrow_table()
    except Exception as e:  # noqa: BLE001 - a delta-rs limitation, not ours
        pytest.skip(f"delta-rs cannot read it: {str(e).splitlines()[0][:200]}")
    ours = DeltaLog.for_table(spark, str(root)).read()
    assert is_dataframe(ours)
    assert ours.columns == theirs.column_names
    assert _rows(_arrow(ours)) == _rows(theirs)


def _arrow(df: DataFrame) -> pa.Table:
    """The DataFrame's rows as Arrow (``toArrow`` from PySpark 4.0 on)."""
    if hasattr(df, "toArrow"):
        return df.toArrow()
    if hasattr(df, "_collect_as_arrow"):
        return pa.Table.from_batches(df._collect_as_arrow())  # PySpark 3.5
    client = df.sparkSession.client  # PySpark 3.5's Spark Connect DataFrame
    return client.to_table(df._plan.to_proto(client))[0]


def test_snapshot_to_df_and_time_travel(spark: SparkSession) -> None:
    if not fixtures_available():
        pytest.skip(FIXTURES_MISSING)
    log = DeltaLog.for_table(spark, str(FIXTURES_ROOT / "golden/time-travel-partition-changes-b"))
    first = log.snapshot(version=0)
    assert_df_equality(first.to_df(), log.read(version=0), ignore_row_order=True)
    assert log.read(version=1).count() == 10
    by_source = spark.read.format("txlog").option("versionAsOf", 0).load(log.table_path)
    assert_df_equality(by_source, first.to_df(), ignore_row_order=True)
    by_time = log.read(timestamp=first.timestamp)
    assert_df_equality(by_time, first.to_df(), ignore_row_order=True)


def test_bad_arguments_are_refused(spark: SparkSession) -> None:
    if not fixtures_available():
        pytest.skip(FIXTURES_MISSING)
    log = DeltaLog.for_table(spark, str(FIXTURES_ROOT / "golden/data-reader-primitives"))
    with pytest.raises(ValueError, match="version or timestamp"):
        log.read(version=0, timestamp="2024-01-01")
    with pytest.raises(TypeError, match="version"):
        log.read(version="0")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="version"):
        log.read(version=-1)
