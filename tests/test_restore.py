"""RESTORE through the Python API and ``python -m txlog restore``: the result, typed errors,
argument checks and the command line's JSON, with delta-rs's own restore as the oracle."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import DeltaTable
from pyspark.sql import SparkSession

from txlog import DeltaLog, RestoreResult
from txlog.errors import RestoreMissingFilesError, VersionNotFoundError
from txlog_testing import run_cli_in_session

TABLE = "golden/basic-with-inserts-deletes-checkpoint"


def copy_of(fixtures: Path, tmp_path: Path, sub: str) -> Path:
    dest = tmp_path / sub / Path(TABLE).name
    shutil.copytree(fixtures / TABLE, dest)
    for root, dirs, files in os.walk(dest):
        for n in dirs + files:
            os.chmod(os.path.join(root, n), 0o755 if n in dirs else 0o644)
    os.chmod(dest, 0o755)
    return dest


def rows(table: Path, version: int | None = None) -> list[str]:
    dt = DeltaTable(str(table)) if version is None else DeltaTable(str(table), version=version)
    return sorted(str(r) for r in dt.to_pyarrow_table().to_pylist())


def files(table: Path, version: int | None = None) -> set[str]:
    """The live files' paths relative to the table, as delta-rs reads them."""
    dt = DeltaTable(str(table)) if version is None else DeltaTable(str(table), version=version)
    return {str(p) for p in pa.table(dt.get_add_actions(flatten=True))["path"].to_pylist()}


def rs_restore(table: Path, version: int) -> tuple[int, int]:
    """delta-rs's restore: (files restored, files removed)."""
    m = DeltaTable(str(table)).restore(version)
    restored = next(v for k, v in m.items() if "Restored" in k)
    removed = next(v for k, v in m.items() if "Removed" in k)
    return int(restored), int(removed)


def test_restore_agrees_with_delta_rs(spark: SparkSession, fixtures: Path,
                                      tmp_path: Path) -> None:
    ours, ref = copy_of(fixtures, tmp_path, "ours"), copy_of(fixtures, tmp_path, "ref")
    log = DeltaLog.for_table(spark, ours)
    latest = log.snapshot().version
    dry = log.restore(version=2, dry_run=True)
    assert isinstance(dry, RestoreResult)
    assert dry.dry_run and dry.version is None and dry.read_version == latest
    assert log.snapshot().version == latest

    r = log.restore(version=2)
    restored, removed = rs_restore(ref, 2)
    assert (r.num_restored_files, r.num_removed_files) == (restored, removed)
    assert (dry.num_restored_files, dry.num_removed_files) == (restored, removed)
    assert r.version == latest + 1 == DeltaTable(str(ref)).version()
    assert r.restored_version == 2 and not r.dry_run
    assert files(ours) == files(ref)
    assert rows(ours) == rows(ours, 2) == rows(ref)
    assert r.num_of_files_after_restore == len(files(ours))
    op = log.history().orderBy("version", ascending=False).first()
    assert op.operation == "RESTORE"


def test_errors_and_arguments(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    table = copy_of(fixtures, tmp_path, "errors")
    log = DeltaLog.for_table(spark, table)
    with pytest.raises(ValueError, match="exactly one"):
        log.restore()
    with pytest.raises(ValueError, match="exactly one"):
        log.restore(version=1, timestamp="2024-01-01")
    with pytest.raises(TypeError, match="version"):
        log.restore(version="1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="version"):
        log.restore(version=-1)
    with pytest.raises(TypeError, match="timestamp"):
        log.restore(timestamp=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="force"):
        log.restore(version=1, force="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="dry_run"):
        log.restore(version=1, dry_run=1)  # type: ignore[arg-type]
    with pytest.raises(VersionNotFoundError):
        log.restore(version=10_000)
    now = files(table)
    v, gone = next((v, f) for v in range(0, 13)
                   for f in sorted(files(table, v) - now))
    (table / gone).unlink()
    with pytest.raises(RestoreMissingFilesError) as info:
        log.restore(version=v)
    assert info.value.error_class == "RESTORE_MISSING_FILES" and gone in str(info.value)
    forced = log.restore(version=v, force=True)
    assert forced.version is not None and forced.num_restored_files >= 1


@pytest.mark.classic_only
def test_cli_json(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    """`restore` on the command line (in the session's JVM: tests/test_cli.py runs it as a
    process)."""
    ours, ref = copy_of(fixtures, tmp_path, "cli"), copy_of(fixtures, tmp_path, "cli-ref")
    latest = DeltaTable(str(ours)).version()
    dry = run_cli_in_session(spark, "restore", "--json", "--table", str(ours), "--version", "1", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    doc = json.loads(dry.stdout)
    assert (doc["command"], doc["dry_run"], doc["version"]) == ("restore", True, None)
    assert DeltaTable(str(ours)).version() == latest

    done = run_cli_in_session(spark, "restore", "--json", "--table", str(ours), "--version", "1")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    restored, removed = rs_restore(ref, 1)
    assert (doc["num_restored_files"], doc["num_removed_files"]) == (restored, removed)
    assert doc["dry_run"] is False and doc["version"] == latest + 1
    assert rows(ours) == rows(ref)
    assert f"[txlog] {ours}: commit" in done.stderr

    usage = run_cli_in_session(spark, "restore", "--json", "--table", str(ours))
    assert usage.returncode == 2
    assert json.loads(usage.stdout)["error"]["error_class"] == "INVALID_ARGUMENT"
