"""A txlog writer killed with SIGKILL at random moments (publishing, post-commit checkpoints
every 2 commits) leaves a table that delta-rs and txlog read alike, without a partial commit,
and that takes the next commit."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import deltalake
import pytest
from pyspark.sql import SparkSession

import txlog

SCRIPT = Path(__file__).parent / "scripts" / "append_forever.py"
REPO = Path(__file__).resolve().parent.parent


def _committed(out: Path) -> list[int]:
    return [int(x) for x in out.read_text().split()] if out.exists() else []


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _wait_group_gone(pgid: int, timeout_s: float = 60) -> None:
    """Until no process of the writer's group is left (the JVM, reparented, is reaped by init)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"the writer's process group {pgid} outlived SIGKILL")


# One random moment per run (each run draws another): the moments that matter most, a commit
# staged, half written, and a checkpoint half written, are hit on purpose by the Scala suite
# (txlog.txn.ProcessWritersSuite), which also kills a Scala writer at a random moment.
def test_killed_writer_leaves_a_readable_table(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    txlog.create_table(spark, path, "id BIGINT", properties={"delta.checkpointInterval": "2"})
    out = tmp_path / "out.txt"
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    with out.open("w") as stdout, (tmp_path / "err.txt").open("w") as stderr:
        # In a process group of its own: the writer is pyspark's Python and the JVM it starts,
        # and the JVM, which publishes the commits, must die in the same instant (a SIGKILL to
        # the Python process alone let the JVM finish one more commit after delta-rs had read).
        proc = subprocess.Popen([sys.executable, str(SCRIPT), path], stdout=stdout,
                                stderr=stderr, env=env, start_new_session=True)  # fmt: skip
        try:
            deadline = time.monotonic() + 240
            while not _committed(out) and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            seed = random.randrange(1 << 30)
            time.sleep(random.Random(seed).uniform(0, 6))
            os.killpg(proc.pid, signal.SIGKILL)
        finally:
            _kill_group(proc.pid)
            proc.wait(60)
            _wait_group_gone(proc.pid)
    done = _committed(out)
    assert done, (tmp_path / "err.txt").read_text()[-3000:]
    assert proc.returncode == -signal.SIGKILL

    rs = deltalake.DeltaTable(path)
    version = rs.version()
    # The last commit may have landed before it was reported.
    assert version in (done[-1], done[-1] + 1), (seed, done, version)
    log_dir = Path(path) / "_delta_log"
    for v in range(version + 1):  # every published commit is whole JSON, commitInfo first
        lines = (log_dir / f"{v:020d}.json").read_text().splitlines()
        assert "commitInfo" in json.loads(lines[0])
        for line in lines:
            json.loads(line)
    snap = txlog.DeltaLog.for_table(spark, path).snapshot()
    assert snap.version == version
    ours = sorted(r.path for r in snap.all_files().select("path").collect())
    assert ours == sorted(Path(u).name for u in rs.file_uris())
    assert len(ours) == version

    df = spark.createDataFrame([("after.parquet", 1, {}, 1_700_000_000_000, True)],
                               "path string, size long, partitionValues map<string,string>, "
                               "modificationTime long, dataChange boolean")  # fmt: skip
    assert txlog.DeltaLog.for_table(spark, path).start_transaction().add_files(df).commit() == (
        version + 1)
    assert deltalake.DeltaTable(path).version() == version + 1
