"""REPAIR through the Python API and ``python -m txlog repair``: a data file deleted from a
copy of a fixture is found by the dry run and removed by the repair's commit, with delta-rs
reading the table before and after as the oracle."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from deltalake import DeltaTable
from pyspark.sql import SparkSession

from test_restore import copy_of, files
from txlog import DeltaLog, RepairResult
from txlog.errors import RepairTooManyLostFilesError
from txlog_testing import run_cli_in_session


def lose_a_file(table: Path) -> str:
    """Deletes one live data file (as delta-rs lists it) and returns its path."""
    path = sorted(files(table))[0]
    os.remove(table / path)
    return path


def test_repair_removes_a_lost_file(spark: SparkSession, fixtures: Path,
                                    tmp_path: Path) -> None:
    table = copy_of(fixtures, tmp_path, "t")
    before, version = files(table), DeltaTable(str(table)).version()
    lost = lose_a_file(table)
    log = DeltaLog.for_table(spark, table)
    # The copy has few files: one is more than 10% of them, removed only when forced.
    with pytest.raises(RepairTooManyLostFilesError) as refused:
        log.repair(dry_run=False)
    assert refused.value.error_class == "REPAIR_TOO_MANY_LOST_FILES"
    assert DeltaTable(str(table)).version() == version
    plan = log.repair(force=True)
    assert isinstance(plan, RepairResult) and plan.dry_run and not plan.is_clean
    assert plan.num_files_removed == 1 and plan.commit_version is None
    assert [(r.action, r.file, r.done) for r in plan.actions.collect()] == [
        ("remove-file", lost, False)]
    assert DeltaTable(str(table)).version() == version  # the dry run committed nothing
    plan.unpersist()
    done = log.repair(dry_run=False, force=True)
    assert done.commit_version == version + 1 and done.num_files_removed == 1
    rs = DeltaTable(str(table))
    assert rs.version() == version + 1
    assert files(table) == before - {lost}
    assert rs.history(1)[0]["operation"] == "FSCK"
    assert rs.to_pyarrow_table().num_rows > 0  # every live file reads again
    assert log.repair().is_clean


def test_repair_argument_check(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    log = DeltaLog.for_table(spark, copy_of(fixtures, tmp_path, "t"))
    with pytest.raises(TypeError, match="dry_run"):
        log.repair(dry_run="no")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="force"):
        log.repair(force=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="remove_files_with_missing_dv"):
        log.repair(remove_files_with_missing_dv="yes")  # type: ignore[arg-type]


@pytest.mark.classic_only
def test_repair_command_line(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    """`repair` on the command line (in the session's JVM: tests/test_cli.py runs it as a
    process)."""
    table = copy_of(fixtures, tmp_path, "t")
    lost = lose_a_file(table)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return run_cli_in_session(spark, "repair", "--table", str(table), "--json", *args)

    dry = run("--force")
    assert dry.returncode == 1, dry.stderr
    doc = json.loads(dry.stdout)
    assert (doc["command"], doc["dry_run"], doc["num_files_removed"]) == ("repair", True, 1)
    assert [a["file"] for a in doc["actions"]] == [lost]
    refused = run("--execute")
    assert refused.returncode == 3, refused.stderr
    doc = json.loads(refused.stdout)
    assert doc["error"]["error_class"] == "REPAIR_TOO_MANY_LOST_FILES"
    assert (doc["exit_code"], doc["retryable"]) == (3, False)
    done = run("--execute", "--force")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["commit_version"] == DeltaTable(str(table)).version()
    assert lost not in files(table)
