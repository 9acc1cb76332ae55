"""A classic-session writer racing a Spark Connect client on one table (tests/test_connect_api.py):
a process of its own with a classic session built by ``txlog.configure_spark``, stepping when
the test creates the file each step waits for, and reporting each step's outcome in
``<dir>/<step>.json`` (``{"version": n}`` or ``{"error_class": ...}``).

Usage: python classic_writer.py TABLE DIR
  1. deletes partition d = 'a' once DIR/go-delete exists;
  2. starts a transaction reading partition d = 'b' and staging its removal, reports
     ``staged``, and commits once DIR/go-commit exists.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

import txlog  # noqa: E402
from txlog.errors import TxlogError  # noqa: E402

WAIT_S = 300


def wait_for(path: Path) -> None:
    deadline = time.monotonic() + WAIT_S
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} did not appear")
        time.sleep(0.05)


def report(directory: Path, step: str, outcome: dict[str, object]) -> None:
    tmp = directory / f"{step}.json.tmp"
    tmp.write_text(json.dumps(outcome))
    tmp.rename(directory / f"{step}.json")


def outcome_of(commit) -> dict[str, object]:  # type: ignore[no-untyped-def]
    try:
        return {"version": commit()}
    except TxlogError as e:
        return {"error_class": e.error_class}


def main(table: str, directory: Path) -> None:
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
    spark = txlog.configure_spark(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    log = txlog.DeltaLog.for_table(spark, table)
    log.snapshot()  # warm: the race starts once the session is up
    report(directory, "ready", {})
    wait_for(directory / "go-delete")
    report(directory, "deleted", outcome_of(lambda: log.delete("d = 'a'").version))
    txn = log.start_transaction()
    txn.remove_files(txn.read_files("partitionValues_parsed.d = 'b'"))
    report(directory, "staged", {"read_version": txn.read_version})
    wait_for(directory / "go-commit")
    report(directory, "committed", outcome_of(lambda: txn.commit("DELETE")))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
