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


@pytest.mark.parametrize("attempt", [1, 2])
def test_killed_writer_leaves_a_readable_table(
    spark: SparkSession, tmp_path: Path, attempt: int
) -> None:
    path = str(tmp_path / "t")
    txlog.create_table(spark, path, "id BIGINT", properties={"delta.checkpointInterval": "2"})
    out = tmp_path / "out.txt"
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    with out.open("w") as stdout, (tmp_path / "err.txt").open("w") as stderr:
        proc = subprocess.Popen([sys.executable, str(SCRIPT), path], stdout=stdout,
                                stderr=stderr, env=env)  # fmt: skip
        try:
            deadline = time.monotonic() + 240
            while not _committed(out) and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            seed = random.randrange(1 << 30)
            time.sleep(random.Random(seed).uniform(0, 6))
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.kill()
            proc.wait(60)
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
