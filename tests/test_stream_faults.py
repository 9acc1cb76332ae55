"""Exactly once under faults (docs/streaming.md): a txlog stream of a table into a txlog sink,
its process killed with SIGKILL every 20-40 s and restarted for TXLOG_STREAM_FAULTS_SECONDS
seconds (`make test-stream-faults`: 300), while delta-spark appends to the source and OPTIMIZEs it.
At the end (the stream drained once more, from the same checkpoint): every row delta-spark
acknowledged is in the sink exactly once, the sink's log holds one `txn` per commit, each batch's
once, and delta-spark and delta-rs read every version of the sink alike."""

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
import pyspark
import pytest
from pyspark.sql import SparkSession
from txlog_testing import stream_copy

SECONDS_ENV = "TXLOG_STREAM_FAULTS_SECONDS"
SCRIPTS = Path(__file__).parent / "scripts"
REPO = Path(__file__).resolve().parent.parent
#: delta-spark for the pyspark line of the virtualenv (the source's writer and a reader).
DELTA_SPARK = {"4.2": "io.delta:delta-spark_4.2_2.13:4.4.0"}

pytestmark = pytest.mark.skipif(
    not os.environ.get(SECONDS_ENV), reason=f"{SECONDS_ENV} not set (make test-stream-faults)"
)


def _start(args: list[str], out: Path, err: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    # a process group of its own: pyspark's Python and its JVM die in the same instant
    return subprocess.Popen(
        [sys.executable, *args],
        stdout=out.open("a"),
        stderr=err.open("a"),
        env=env,
        start_new_session=True,
    )


def _kill(p: subprocess.Popen) -> None:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            os.killpg(p.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"the stream's process group {p.pid} outlived SIGKILL")


def _acknowledged(acks: Path) -> set[int]:
    ids: set[int] = set()
    for line in acks.read_text().split("\n"):
        if line.strip():
            first, count = map(int, line.split())
            ids.update(range(first, first + count))
    return ids


def test_a_killed_stream_writes_every_row_once(spark: SparkSession, tmp_path: Path) -> None:
    package = DELTA_SPARK.get(".".join(pyspark.__version__.split(".")[:2]))
    if package is None:
        pytest.skip(f"no delta-spark listed for pyspark {pyspark.__version__}")
    seconds = float(os.environ[SECONDS_ENV])
    src, dst, chk = (str(tmp_path / n) for n in ("src", "dst", "chk"))
    stop, acks = tmp_path / "stop", tmp_path / "acks.txt"
    appender = _start(
        [str(SCRIPTS / "stream_appender.py"), src, str(stop), package], acks, tmp_path / "a.err"
    )
    deadline = time.monotonic() + 300
    while not (acks.exists() and acks.read_text().strip()):
        assert appender.poll() is None, (tmp_path / "a.err").read_text()[-3000:]
        assert time.monotonic() < deadline, "delta-spark wrote no commit in 5 minutes"
        time.sleep(0.5)
    rng = random.Random(int(os.environ.get("TXLOG_STREAM_FAULTS_SEED", "64")))
    kills, end = 0, time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            copy = _start(
                [str(SCRIPTS / "stream_copy.py"), src, dst, chk],
                tmp_path / "c.out",
                tmp_path / "c.err",
            )
            time.sleep(rng.uniform(20, 40))
            assert copy.poll() is None, (tmp_path / "c.err").read_text()[-3000:]
            _kill(copy)
            kills += 1
    finally:
        stop.touch()
        appender.wait(timeout=300)
    acked = _acknowledged(acks)
    source = {r.id for r in spark.read.format("txlog").load(src).select("id").collect()}
    assert source == acked

    # what is left, from the same checkpoint (the same query id)
    query = stream_copy(spark, src, dst, chk, maxFilesPerTrigger=3)
    ids = [r.id for r in spark.read.format("txlog").load(dst).select("id").collect()]
    assert len(ids) == len(set(ids)), "a row written twice"
    assert set(ids) == acked

    # one txn a commit, the query's, each batch once
    commits = sorted((Path(dst) / "_delta_log").glob("*.json"))
    txns = []
    for f in commits:
        actions = [json.loads(line) for line in f.read_text().splitlines() if line]
        found = [a["txn"] for a in actions if "txn" in a]
        assert len(found) == 1, f"{f.name}: {found}"
        info = next(a["commitInfo"] for a in actions if "commitInfo" in a)
        assert info["operation"] == "STREAMING UPDATE"
        assert info["operationParameters"]["epochId"] == str(found[0]["version"])
        txns.append((found[0]["appId"], found[0]["version"]))
    assert {app for app, _ in txns} == {str(query.id)}
    batches = [v for _, v in txns]
    assert batches == sorted(set(batches)), "a batch committed twice"

    # every version read alike by delta-rs and delta-spark
    by_rs = {
        v: deltalake.DeltaTable(dst, version=v).to_pyarrow_table().num_rows
        for v in range(len(commits))
    }
    out = subprocess.run(
        [sys.executable, str(SCRIPTS / "delta_spark_versions.py"), dst, package],
        capture_output=True,
        text=True,
        check=True,
    )
    by_spark = {int(k): v for k, v in json.loads(out.stdout.strip().splitlines()[-1]).items()}
    assert by_spark == by_rs
    print(
        f"\nstream faults: {seconds:g} s, {kills} kills, {len(acked)} rows acknowledged, "
        f"{len(commits)} sink commits (batches {batches[0]} to {batches[-1]}), every row once; "
        f"{len(by_rs)} versions read alike by delta-rs and delta-spark"
    )
