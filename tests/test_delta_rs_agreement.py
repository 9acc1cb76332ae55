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

from pathlib import Path
from typing import Any, Iterator

import pytest
from pyspark.sql import SparkSession

from delta_rs_oracle import compare_version
from txlog import DeltaLog
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
