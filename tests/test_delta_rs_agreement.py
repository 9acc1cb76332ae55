"""txlog agrees with delta-rs (the `deltalake` package) on every fixture table delta-rs loads:
version, protocol, metadata id and partition columns, and the live files (path, size, typed
partition values), at the latest version and at a few older ones.

Where delta-rs refuses a table, txlog must refuse it too for the same reason (the same
category: not a table, missing log files, corrupt, unsupported protocol), or, where txlog reads
it (a delta-rs limitation, e.g. a null schemaString it cannot parse), the test is skipped with
delta-rs's reason: delta-spark agreement covers those tables. Tables that are meant to fail must
be refused by both, for the same reason.
"""

from __future__ import annotations

import json
import math
from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import unquote, urlparse

import pytest
from chispa import assert_df_equality
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import (
    LongType, StringType, StructField, StructType, TimestampType,
)

from txlog import DeltaLog, Snapshot
from txlog.errors import TxlogError
from txlog_testing import FIXTURES_MISSING, FIXTURES_ROOT, fixture_tables

# Meant to fail (see the fixtures' README): both must refuse, for the same reason.
MEANT_TO_FAIL = {
    "golden/versions-not-contiguous",
    "golden/deltalog-invalid-protocol-version",
    "golden/deltalog-state-reconstruction-without-metadata",
    "golden/deltalog-state-reconstruction-without-protocol",
    "golden/deltalog-state-reconstruction-from-checkpoint-missing-metadata",
    "golden/deltalog-state-reconstruction-from-checkpoint-missing-protocol",
}

# Older versions compared besides the latest, at most this many per table.
MAX_OLDER_VERSIONS = 2

# Known txlog bugs, reported to the lead: table -> reason. Marked xfail(strict=True).
KNOWN_TXLOG_BUGS: dict[str, str] = {}

FILES_SCHEMA = StructType([
    StructField("path", StringType(), False),
    StructField("size", LongType(), False),
    # Canonical partition values as sorted JSON text (chispa cannot sort map columns).
    StructField("partition_values", StringType(), False),
])


# Why a reader refused a table. txlog's error classes and delta-rs's errors (by type, or by
# message where delta-rs raises a plain DeltaError) are each mapped here, as literals.
TXLOG_CATEGORIES = {
    "DELTA_TABLE_NOT_FOUND": "not-a-table",
    "LOG_VERSION_GAP": "missing-log", "MISSING_LOG_FILES": "missing-log",
    "VERSION_NOT_FOUND": "missing-log",
    "MALFORMED_LOG_FILE": "corrupt", "MISSING_PROTOCOL": "corrupt",
    "MISSING_METADATA": "corrupt",
    "INVALID_PROTOCOL": "unsupported", "UNSUPPORTED_READER_VERSION": "unsupported",
    "UNSUPPORTED_READER_FEATURES": "unsupported",
}
DELTA_RS_MESSAGES = [
    ("Expected contiguous commit files", "missing-log"),
    ("No table metadata found", "corrupt"),
    ("No protocol found", "corrupt"),
    ("unmasked nulls", "corrupt"),
    ("Invalid protocol action", "unsupported"),
    ("Unsupported", "unsupported"),
    ("catalog-managed", "unsupported"),
]


def delta_rs_category(e: BaseException) -> str:
    from deltalake.exceptions import TableNotFoundError

    if isinstance(e, TableNotFoundError):
        return "not-a-table"
    text = str(e)
    for needle, category in DELTA_RS_MESSAGES:
        if needle in text:
            return category
    return f"unmapped: {type(e).__name__}: {text.splitlines()[0][:160] if text else ''}"


def txlog_category(e: TxlogError) -> str:
    return TXLOG_CATEGORIES.get(e.error_class or "", f"unmapped: {e.error_class}")


def table_params() -> list[Any]:
    tables = list(fixture_tables())
    if not tables:
        return [pytest.param(None, marks=pytest.mark.skip(reason=FIXTURES_MISSING), id="none")]
    params = []
    for t in tables:
        marks = []
        if t in KNOWN_TXLOG_BUGS:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_TXLOG_BUGS[t]))
        params.append(pytest.param(t, marks=marks, id=t))
    return params


# --------------------------------------------------------------------------- normalization

def normalize_path(raw: str, table_root: Path) -> str:
    """A file path as the log's URI-encoded path decoded, relative to the table when inside."""
    parsed = urlparse(raw)
    if parsed.scheme and len(parsed.scheme) > 1:  # absolute URI (not a Windows drive)
        if parsed.scheme != "file":
            return unquote(raw)
        local = Path(unquote(parsed.path))
        try:
            return str(local.relative_to(table_root))
        except ValueError:
            return str(local)
    return unquote(raw)


def canonical(value: Any, spark_local_timestamp: bool = False) -> str | None:
    """One text per partition value, the same for equal values of either library."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else repr(value)
    if isinstance(value, Decimal):
        return "0" if value == 0 else format(value.normalize(), "f")
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            return value.astimezone(timezone.utc).isoformat()
        if spark_local_timestamp:
            # PySpark returns TimestampType values as naive datetimes in local time.
            return value.astimezone(timezone.utc).isoformat()
        return value.isoformat()  # timestamp_ntz
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()
    return str(value)


def pv_text(values: dict[str, str | None]) -> str:
    return json.dumps(values, sort_keys=True)


def txlog_files(spark: SparkSession, snap: Snapshot, root: Path) -> DataFrame:
    df = snap.all_files()
    pv_type = df.schema["partitionValues_parsed"].dataType
    ltz = {f.name for f in pv_type.fields if isinstance(f.dataType, TimestampType)}
    rows = []
    for r in df.select("path", "size", "partitionValues_parsed").collect():
        pv = r.partitionValues_parsed.asDict() if r.partitionValues_parsed is not None else {}
        rows.append((normalize_path(r.path, root), int(r.size),
                     pv_text({k: canonical(v, k in ltz) for k, v in pv.items()})))
    return spark.createDataFrame(rows, FILES_SCHEMA)


def delta_rs_files(spark: SparkSession, dt: Any, root: Path) -> DataFrame:
    import pyarrow as pa

    table = pa.table(dt.get_add_actions(flatten=True))
    prefix = "partition."
    pcols = [c for c in table.column_names if c.startswith(prefix)]
    rows = []
    for r in table.select(["path", "size_bytes", *pcols]).to_pylist():
        rows.append((normalize_path(r["path"], root), int(r["size_bytes"]),
                     pv_text({c[len(prefix):]: canonical(r[c]) for c in pcols})))
    return spark.createDataFrame(rows, FILES_SCHEMA)


def features(f: Any) -> frozenset[str] | None:
    return None if f is None else frozenset(f)


# --------------------------------------------------------------------------- the test

def compare_version(spark: SparkSession, log: DeltaLog, root: Path, dt: Any,
                    version: int | None) -> None:
    where = "latest" if version is None else f"version {version}"
    try:
        snap = log.snapshot(version=version)
    except TxlogError as e:
        pytest.fail(f"txlog refuses {where} that delta-rs loads: {type(e).__name__}: {e}")
    assert snap.version == dt.version(), where

    p, rp = snap.protocol, dt.protocol()
    assert (p.min_reader_version, p.min_writer_version) == (
        rp.min_reader_version, rp.min_writer_version), where
    if p.reader_features or rp.reader_features:
        assert p.reader_features == features(rp.reader_features), where
    if p.writer_features or rp.writer_features:
        assert p.writer_features == features(rp.writer_features), where

    md, rmd = snap.metadata, dt.metadata()
    assert md.id == rmd.id, where
    assert list(md.partition_columns) == list(rmd.partition_columns), where

    expected = delta_rs_files(spark, dt, root)
    actual = txlog_files(spark, snap, root)
    assert_df_equality(actual, expected, ignore_row_order=True)
    if version is None:
        sizes = [r.size for r in expected.collect()]
        assert (snap.num_files, snap.size_in_bytes) == (len(sizes), sum(sizes)), where


def older_versions(latest: int) -> list[int]:
    """Version 0 and one in the middle (before a checkpoint, if any, in most fixtures)."""
    if latest == 0:
        return []
    return sorted({0, latest // 2})[:MAX_OLDER_VERSIONS]


@pytest.fixture(scope="module", autouse=True)
def utc_session(spark: SparkSession) -> Iterator[None]:
    """Timestamp partition values written as `yyyy-MM-dd HH:mm:ss` carry no zone: txlog (like
    delta-spark) reads them in the Spark session time zone, delta-rs reads them as UTC. Compare
    in a UTC session."""
    before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    yield
    spark.conf.set("spark.sql.session.timeZone", before)


def check_refusal(spark: SparkSession, table: str, root: Path, refusal: Exception) -> None:
    """delta-rs refuses the table: txlog must refuse it for the same reason, or read it (a
    delta-rs limitation: skipped) unless the table is meant to fail."""
    theirs = delta_rs_category(refusal)
    reason = str(refusal).splitlines()[0][:160] if str(refusal) else type(refusal).__name__
    try:
        snap = DeltaLog.for_table(spark, root).snapshot()
    except TxlogError as e:
        ours = txlog_category(e)
        assert ours == theirs and not ours.startswith("unmapped"), (
            f"both refuse, for different reasons: txlog {e.error_class} ({ours}), "
            f"delta-rs {reason} ({theirs})")
        return
    assert table not in MEANT_TO_FAIL, f"txlog reads v{snap.version} of a table meant to fail"
    pytest.skip(f"delta-rs refuses it ({reason}); txlog reads version {snap.version}")


@pytest.mark.parametrize("table", table_params())
def test_agrees_with_delta_rs(spark: SparkSession, table: str) -> None:
    from deltalake import DeltaTable

    root = FIXTURES_ROOT / table
    try:
        dt = DeltaTable(str(root))
        dt.get_add_actions(flatten=True)
    except Exception as e:  # noqa: BLE001 - any refusal by delta-rs is compared by category
        check_refusal(spark, table, root, e)
        return
    assert table not in MEANT_TO_FAIL, "delta-rs reads a table meant to fail"

    log = DeltaLog.for_table(spark, root)
    compare_version(spark, log, root, dt, None)

    for v in older_versions(dt.version()):
        try:
            old = DeltaTable(str(root), version=v)
            old.get_add_actions(flatten=True)
        except Exception:  # noqa: BLE001 - e.g. the log was cleaned up before v
            continue
        compare_version(spark, log, root, old, v)
