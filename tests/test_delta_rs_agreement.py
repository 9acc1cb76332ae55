"""txlog agrees with delta-rs (the `deltalake` package) on every fixture table delta-rs loads:
version, protocol, metadata id and partition columns, and the live files (path, size, typed
partition values), at the latest version and at a few older ones.

delta-rs's answers are the recorded ones (``tests/oracle_recording.py``, made by ``make
oracle-record``); a sample of tables is asked of delta-rs again each run, and must answer as
recorded.

Where delta-rs refuses a table, txlog must refuse it too for the same reason (the same
category: not a table, missing log files, corrupt, unsupported protocol), or, where txlog reads
it (a delta-rs limitation, e.g. a null schemaString it cannot parse), the test is skipped with
delta-rs's reason: delta-spark agreement covers those tables. Tables that are meant to fail must
be refused by both, for the same reason. Over Spark Connect, a share of the fixtures a day
(txlog_testing.connect_share).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from pyspark.sql import SparkSession

import oracle_recording
from delta_rs_oracle import compare_version
from oracle_recording import DeltaRsAnswer, RecordingError, older_versions
from txlog import DeltaLog
from txlog.errors import TxlogError
from txlog_testing import FIXTURES_MISSING, FIXTURES_ROOT, connect_share, fixture_tables

# Meant to fail (see the fixtures' README): both must refuse, for the same reason.
MEANT_TO_FAIL = {
    "golden/versions-not-contiguous",
    "golden/deltalog-invalid-protocol-version",
    "golden/deltalog-state-reconstruction-without-metadata",
    "golden/deltalog-state-reconstruction-without-protocol",
    "golden/deltalog-state-reconstruction-from-checkpoint-missing-metadata",
    "golden/deltalog-state-reconstruction-from-checkpoint-missing-protocol",
}

# Known txlog bugs, reported to the lead: table -> reason. Marked xfail(strict=True).
KNOWN_TXLOG_BUGS: dict[str, str] = {}

# Why txlog refused a table, in delta-rs's categories (delta_rs_oracle.delta_rs_category), as
# literals.
TXLOG_CATEGORIES = {
    "DELTA_TABLE_NOT_FOUND": "not-a-table",
    "LOG_VERSION_GAP": "missing-log", "MISSING_LOG_FILES": "missing-log",
    "VERSION_NOT_FOUND": "missing-log",
    "MALFORMED_LOG_FILE": "corrupt", "MISSING_PROTOCOL": "corrupt",
    "MISSING_METADATA": "corrupt",
    "INVALID_PROTOCOL": "unsupported", "UNSUPPORTED_READER_VERSION": "unsupported",
    "UNSUPPORTED_READER_FEATURES": "unsupported",
}


def txlog_category(e: TxlogError) -> str:
    return TXLOG_CATEGORIES.get(e.error_class or "", f"unmapped: {e.error_class}")


def table_params() -> list[Any]:
    # the meant-to-fail tables and the known bugs every time, errors cross the transport too
    tables = connect_share(list(fixture_tables()), set(MEANT_TO_FAIL) | set(KNOWN_TXLOG_BUGS))
    if not tables:
        return [pytest.param(None, marks=pytest.mark.skip(reason=FIXTURES_MISSING), id="none")]
    params = []
    for t in tables:
        marks = []
        if t in KNOWN_TXLOG_BUGS:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_TXLOG_BUGS[t]))
        params.append(pytest.param(t, marks=marks, id=t))
    return params


@pytest.fixture(scope="module", autouse=True)
def utc_session(spark: SparkSession) -> Iterator[None]:
    """Timestamp partition values written as `yyyy-MM-dd HH:mm:ss` carry no zone: txlog (like
    delta-spark) reads them in the Spark session time zone, delta-rs reads them as UTC. Compare
    in a UTC session."""
    before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    yield
    spark.conf.set("spark.sql.session.timeZone", before)


@pytest.fixture(scope="module")
def recording() -> dict[str, Any]:
    """The recorded delta-rs answers, checked against the fixtures present."""
    if not FIXTURES_ROOT.is_dir():
        pytest.skip(FIXTURES_MISSING)
    try:
        return oracle_recording.load()
    except RecordingError as e:
        pytest.fail(str(e), pytrace=False)


def check_refusal(spark: SparkSession, table: str, root: Path, theirs: str, reason: str) -> None:
    """delta-rs refuses the table (category ``theirs``): txlog must refuse it for the same
    reason, or read it (a delta-rs limitation: skipped) unless the table is meant to fail."""
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
def test_agrees_with_delta_rs(spark: SparkSession, recording: dict[str, Any], table: str) -> None:
    root = FIXTURES_ROOT / table
    entry = recording["answers"].get(table)
    assert entry is not None, f"{table}: no recorded delta-rs answer: {oracle_recording.HINT}"
    if "refusal" in entry:
        refusal = entry["refusal"]
        check_refusal(spark, table, root, refusal["category"], refusal["reason"])
        return
    assert table not in MEANT_TO_FAIL, "delta-rs reads a table meant to fail"

    answers = entry["versions"]
    log = DeltaLog.for_table(spark, root)
    latest = DeltaRsAnswer.from_json(answers["latest"], FIXTURES_ROOT)
    compare_version(spark, log, root, latest, None)

    for v in older_versions(latest.version):
        assert str(v) in answers, f"{table}: v{v} not recorded: {oracle_recording.HINT}"
        if answers[str(v)] is None:  # delta-rs cannot load it, e.g. the log was cleaned up
            continue
        compare_version(spark, log, root, DeltaRsAnswer.from_json(answers[str(v)], FIXTURES_ROOT),
                        v)


def test_recording_agrees_with_delta_rs_now(recording: dict[str, Any]) -> None:
    """A sample of the recorded answers, asked of delta-rs again (seed: TXLOG_ORACLE_SEED, or
    the day's number)."""
    drawn = oracle_recording.sample(list(recording["answers"]), 4)
    for table in drawn:
        now = json.loads(json.dumps(oracle_recording.ask_delta_rs(table)))
        recorded = recording["answers"][table]
        if "refusal" in now and "refusal" in recorded:  # the same reason; texts may differ
            now, recorded = now["refusal"]["category"], recorded["refusal"]["category"]
        assert now == recorded, (
            f"{table}: delta-rs answers otherwise than recorded (seed "
            f"{oracle_recording.sample_seed()}): {oracle_recording.HINT}")
