"""VACUUM through the Python API and ``python -m txlog vacuum``: the result, typed errors,
argument checks and the command line's JSON, with delta-rs as the oracle of what goes."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
from deltalake import DeltaTable
from pyspark.sql import SparkSession

from txlog import DeltaLog, VacuumResult
from txlog.errors import (
    InvalidArgumentError, RetentionTooShortError, VacuumLiteNotPossibleError,
    VacuumUnrelatedPathsError,
)
from txlog_testing import run_cli_in_session

TABLE = "golden/basic-with-inserts-deletes-checkpoint"


def copy_of(fixtures: Path, tmp_path: Path, name: str = TABLE) -> Path:
    """A writable copy whose files are all 30 days old (the fixtures were copied to this
    machine recently, so their files look new; the table keeps 7 days)."""
    dest = tmp_path / Path(name).name
    shutil.copytree(fixtures / name, dest)
    old = time.time() - 30 * 24 * 3600
    for root, dirs, files in os.walk(dest):
        for n in dirs + files:
            os.chmod(os.path.join(root, n), 0o755 if n in dirs else 0o644)
        for n in files:
            os.utime(os.path.join(root, n), (old, old))
    os.chmod(dest, 0o755)
    return dest


def rs_dry_run(table: Path) -> set[str]:
    """What delta-rs would delete: the files of expired tombstones (its default mode)."""
    return set(DeltaTable(str(table)).vacuum(dry_run=True))


def test_dry_run_then_delete(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    table = copy_of(fixtures, tmp_path)
    expected = rs_dry_run(table)
    assert expected
    log = DeltaLog.for_table(spark, table)
    dry = log.vacuum()
    assert isinstance(dry, VacuumResult)
    assert (dry.mode, dry.dry_run, dry.retention_hours) == ("full", True, 168.0)
    files = {r.path for r in dry.files.collect()}
    assert files == expected
    assert dry.num_files == len(expected) and dry.num_deleted_files == 0
    assert dry.size_in_bytes == sum((table / f).stat().st_size for f in expected)
    assert dry.start_commit is None and all((table / f).exists() for f in expected)
    dry.unpersist()
    rows = DeltaTable(str(table)).to_pyarrow_table().num_rows

    done = log.vacuum(dry_run=False)
    assert done.num_deleted_files == len(expected)
    assert not any((table / f).exists() for f in expected)
    assert all(r.deleted for r in done.files.collect())
    assert done.end_commit == done.start_commit + 1
    done.unpersist()
    ops = [r.operation for r in log.history().orderBy("version").collect()]
    assert ops[-2:] == ["VACUUM START", "VACUUM END"]
    after = DeltaTable(str(table))
    assert after.to_pyarrow_table().num_rows == rows
    assert after.version() == done.end_commit


def test_lite_reads_the_log(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    table = copy_of(fixtures, tmp_path)
    (table / "untracked.parquet").write_text("x")
    os.utime(table / "untracked.parquet", (0, 0))
    r = DeltaLog.for_table(spark, table).vacuum(lite=True)
    assert r.mode == "lite"
    assert {x.path for x in r.files.collect()} == rs_dry_run(table)
    full = DeltaLog.for_table(spark, table).vacuum()
    assert "untracked.parquet" in {x.path for x in full.files.collect()}
    r.unpersist()
    full.unpersist()


def test_errors_and_arguments(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    table = copy_of(fixtures, tmp_path)
    log = DeltaLog.for_table(spark, table)
    with pytest.raises(RetentionTooShortError) as info:
        log.vacuum(retention_hours=1)
    assert info.value.error_class == "VACUUM_RETENTION_TOO_SHORT"
    assert isinstance(info.value, InvalidArgumentError) and isinstance(info.value, ValueError)
    log.vacuum(retention_hours=1, force=True).unpersist()
    with pytest.raises(TypeError, match="retention_hours"):
        log.vacuum(retention_hours="1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="retention_hours"):
        log.vacuum(retention_hours=-1)
    with pytest.raises(TypeError, match="dry_run"):
        log.vacuum(dry_run="no")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="lite"):
        log.vacuum(lite=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="allow_unrelated_paths"):
        log.vacuum(allow_unrelated_paths="yes")  # type: ignore[arg-type]
    (table / "_delta_log" / "00000000000000000000.json").unlink()
    with pytest.raises(VacuumLiteNotPossibleError) as lite:
        log.vacuum(lite=True)
    assert lite.value.error_class == "VACUUM_LITE_NOT_POSSIBLE"


def test_unrelated_path_stops_vacuum(spark: SparkSession, fixtures: Path,
                                     tmp_path: Path) -> None:
    """A log naming a file on another store than the root's (written here by hand, as another
    writer could): nothing is deleted unless allowed; delta-rs's dry run is what goes then."""
    table = copy_of(fixtures, tmp_path)
    expected = rs_dry_run(table)
    log = DeltaLog.for_table(spark, table)
    version = log.snapshot().version + 1
    add = {"add": {"path": "s3a://bucket/elsewhere/x.parquet", "partitionValues": {},
                   "size": 1, "modificationTime": 0, "dataChange": True}}
    (table / "_delta_log" / f"{version:020d}.json").write_text(json.dumps(add) + "\n")
    with pytest.raises(VacuumUnrelatedPathsError) as info:
        log.vacuum(retention_hours=168, dry_run=False)
    assert info.value.error_class == "VACUUM_UNRELATED_PATHS"
    assert "s3a://bucket/elsewhere/x.parquet" in info.value.message
    assert all((table / f).exists() for f in expected)
    r = log.vacuum(retention_hours=168, dry_run=False, allow_unrelated_paths=True)
    assert r.num_deleted_files == len(expected) and r.num_skipped_paths == 1
    r.unpersist()


@pytest.mark.classic_only
def test_cli_json(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    """`vacuum` on the command line (in the session's JVM: tests/test_cli.py runs it as a
    process)."""
    table = copy_of(fixtures, tmp_path)
    expected = rs_dry_run(table)
    dry = run_cli_in_session(spark, "vacuum", "--json", "--table", str(table))
    assert dry.returncode == 0, dry.stderr
    doc = json.loads(dry.stdout)
    assert (doc["table"], doc["command"], doc["dry_run"]) == (str(table), "vacuum", True)
    assert set(doc["files"]) == expected and doc["num_files"] == len(expected)
    assert doc["size_in_bytes"] == sum((table / f).stat().st_size for f in expected)
    assert doc["mode"] == "full" and doc["num_deleted_files"] == 0
    assert all((table / f).exists() for f in expected)

    short = run_cli_in_session(spark, "vacuum", "--json", "--table", str(table), "--retain-hours", "1")
    assert short.returncode == 3
    assert json.loads(short.stdout)["error"]["error_class"] == "VACUUM_RETENTION_TOO_SHORT"

    done = run_cli_in_session(spark, "vacuum", "--json", "--table", str(table), "--execute")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["dry_run"] is False and doc["num_deleted_files"] == len(expected)
    assert not any((table / f).exists() for f in expected)
    assert f"[txlog] {table}: record VACUUM END" in done.stderr
