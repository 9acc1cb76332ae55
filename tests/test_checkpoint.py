"""Checkpoints written by txlog, read back by delta-rs (``deltalake``) and by txlog.

For every fixture delta-rs reads, a copy is checkpointed by txlog at its latest version (the
fixture's own checkpoints of that version removed first, so readers must use txlog's) and
delta-rs must then see the same files as it saw in the original table (as recorded,
tests/oracle_recording.py). Over Spark Connect, a share of the fixtures a day
(txlog_testing.connect_share).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

import oracle_recording
from delta_rs_oracle import delta_rs_file_rows, refused_on_this_spark, txlog_file_rows
from oracle_recording import DeltaRsAnswer
from test_delta_rs_agreement import MEANT_TO_FAIL
from test_delta_rs_agreement import utc_session  # noqa: F401 - compare in a UTC session
from txlog import CheckpointResult, DeltaLog
from txlog.errors import InvalidArgumentError, UnsupportedFeatureError
from txlog_testing import (FIXTURES_MISSING, FIXTURES_ROOT, connect_share, copy_table,
                           fixture_tables)

# Multi-part checkpoints are also written on these (any table without v2Checkpoint would do).
MULTIPART_TABLES = {
    "golden/basic-with-inserts-deletes-checkpoint",
    "golden/dv-partitioned-with-checkpoint",
    "golden/time-travel-partition-changes-b",
    "golden/data-reader-partition-values",
}


def table_params() -> list[Any]:
    # V2 checkpoints (JSON and parquet, sidecars) and the multi-part tables every time
    always = MULTIPART_TABLES | {t for t in fixture_tables() if "v2-checkpoint" in t}
    tables = connect_share([t for t in fixture_tables() if t not in MEANT_TO_FAIL], always)
    if not tables:
        return [pytest.param(None, marks=pytest.mark.skip(reason=FIXTURES_MISSING), id="none")]
    return [pytest.param(t, id=t) for t in tables]


def delta_rs_table(root: Path) -> Any:
    from deltalake import DeltaTable

    dt = DeltaTable(str(root))
    dt.get_add_actions(flatten=True)
    return dt


def checkpointed_copy(src: Path, dst: Path, version: int) -> Path:
    copy = copy_table(src, dst)
    prefix = f"{version:020d}.checkpoint."
    for f in (copy / "_delta_log").iterdir():
        if f.name.startswith(prefix):
            f.unlink()
    return copy


@pytest.fixture(scope="module")
def recording() -> dict[str, Any]:
    """delta-rs's recorded answers on the fixtures (checked against the fixtures present)."""
    try:
        return oracle_recording.load()
    except oracle_recording.RecordingError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.mark.parametrize("table", table_params())
def test_delta_rs_reads_txlog_checkpoints(spark: SparkSession, recording: dict[str, Any],
                                         tmp_path: Path, table: str) -> None:
    src = FIXTURES_ROOT / table
    entry = recording["answers"][table]
    if "refusal" in entry:  # a table delta-rs refuses says nothing here
        pytest.skip(f"delta-rs refuses the original: {entry['refusal']['reason'][:120]}")
    original = DeltaRsAnswer.from_json(entry["versions"]["latest"], FIXTURES_ROOT)
    expected = sorted(original.files)
    v2_table = "v2Checkpoint" in (original.writer_features or [])
    kinds = [{}] + ([{"kind": "multipart", "parts": 3}] if table in MULTIPART_TABLES else [])
    if v2_table:
        kinds.append({"kind": "classic"})
    for i, kind in enumerate(kinds):
        copy = checkpointed_copy(src, tmp_path / str(i), original.version)
        try:
            result = DeltaLog.for_table(spark, copy).checkpoint(**kind)
        except UnsupportedFeatureError as e:
            assert e.error_class == ("UNSUPPORTED_READER_FEATURES"
                                     if refused_on_this_spark(original)
                                     else "UNSUPPORTED_WRITER_FEATURES"), e
            pytest.skip(f"txlog refuses to write this table: {e}")
        assert isinstance(result, CheckpointResult)
        assert result.version == original.version
        assert result.num_add_files == len(expected)
        if kind.get("kind") == "multipart":
            assert len(result.files) == 3
        elif v2_table and not kind:
            assert result.kind == "v2" and ".checkpoint." in result.files[0]
        after = delta_rs_table(copy)
        assert after.version() == original.version
        assert sorted(delta_rs_file_rows(after, copy)) == expected
        snap = DeltaLog.for_table(spark, copy).snapshot()
        assert snap.checkpoint_version == original.version
        assert sorted(txlog_file_rows(snap, copy)) == expected


def test_checkpoint_argument_checks(spark: SparkSession, tmp_path: Path) -> None:
    if not FIXTURES_ROOT.is_dir():
        pytest.skip(FIXTURES_MISSING)
    root = copy_table(FIXTURES_ROOT / "golden/checkpoint", tmp_path / "t")
    before = sorted(f.name for f in (root / "_delta_log").iterdir())
    log = DeltaLog.for_table(spark, root)
    with pytest.raises(ValueError, match="kind"):
        log.checkpoint(kind="zip")
    with pytest.raises(TypeError, match="parts"):
        log.checkpoint(kind="multipart", parts="3")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="parts"):
        log.checkpoint(kind="multipart", parts=1)
    with pytest.raises(TypeError, match="sidecars"):
        log.checkpoint(kind="v2", sidecars="yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError) as e:
        log.checkpoint(kind="v2")
    assert e.value.error_class == "CHECKPOINT_KIND_NOT_ALLOWED"
    assert sorted(f.name for f in (root / "_delta_log").iterdir()) == before
