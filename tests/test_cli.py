"""``python -m txlog``: the maintenance command line run as a subprocess."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from deltalake import DeltaTable

from txlog_testing import run_cli


def test_describe_json(txlog_jar: str, fixtures: Path, tmp_path: Path) -> None:
    table = tmp_path / "t"
    shutil.copytree(fixtures / "golden" / "data-reader-partition-values", table)
    done = run_cli("describe", "--json", "--table", str(table))
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)  # stdout holds the one document, nothing else
    assert (doc["table"], doc["command"], doc["dry_run"]) == (str(table), "describe", False)
    ref = DeltaTable(str(table))  # delta-rs as the oracle
    assert doc["id"] == ref.metadata().id
    assert doc["version"] == ref.version()
    assert doc["num_files"] == len(ref.file_uris())
    assert doc["partition_columns"] == ref.metadata().partition_columns
    assert f"[txlog] {table}: describe" in done.stderr


def test_help_and_usage_errors_answer_without_spark(txlog_jar: str) -> None:
    """With a master no Spark session can start on, help and usage errors are still answered:
    they never start Spark (and a mistyped flag never runs the command)."""
    cases = [
        (("--help",), 0, "Commands:"),
        (("vacuum", "--help"), 0, "--retain-hours"),
        (("repair", "--execute", "--dry-run", "--table", "/nowhere"), 2, "not both"),
        (("restore", "--table", "/nowhere", "--version", "3", "--dryrun"), 2, "'--dryrun'"),
        (("vacuum", "--table", "/nowhere", "--retain-hours"), 2, "needs a value"),
        (("vacuum", "--table", "/nowhere", "--json", "--retain"), 2, "'--retain'"),
    ]
    for args, code, said in cases:
        done = run_cli("--master", "nonsense://nowhere", *args)
        assert done.returncode == code, (args, done.stderr)
        assert said in (done.stdout if code == 0 else done.stderr), (args, done)
        if code and "--json" in args:  # one document, as for every other outcome
            doc = json.loads(done.stdout)
            assert (doc["command"], doc["table"], doc["exit_code"], doc["retryable"]) == (
                "vacuum", None, 2, False)
            assert doc["error"]["error_class"] == "INVALID_ARGUMENT"
        elif code:
            assert done.stdout == ""


def test_python_describe_and_validate(
        spark: "SparkSession", fixtures: Path, tmp_path: Path) -> None:  # noqa: F821
    import txlog

    table = tmp_path / "t"
    shutil.copytree(fixtures / "kernel" / "basic-dv-no-checkpoint", table)
    log = txlog.DeltaLog.for_table(spark, str(table))
    d = log.describe()
    ref = DeltaTable(str(table))
    assert (d["id"], d["version"], d["num_files"]) == (
        ref.metadata().id, ref.version(), len(ref.file_uris()))
    assert log.validate().where("severity = 'error'").count() == 0
    dv = next(p for p in table.iterdir() if p.name.startswith("deletion_vector_"))
    dv.unlink()
    rules = {(r.rule, r.version) for r in log.validate().where("severity = 'error'").collect()}
    assert ("missing-dv-file", 1) in rules
