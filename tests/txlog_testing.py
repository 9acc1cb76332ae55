"""Helpers shared by the tests (imported as a plain module: pytest puts tests/ on sys.path)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = REPO_ROOT.parent / "shared"
FIXTURES_ROOT = SHARED_DIR / "fixtures"
FIXTURES_MISSING = (
    f"Delta fixtures not available: {FIXTURES_ROOT} is absent (the shared folder ../shared "
    "next to the repository holds them)"
)


def fixtures_available() -> bool:
    return FIXTURES_ROOT.is_dir()


def tables_under(root: Path) -> list[str]:
    """Every folder under ``root`` holding a ``_delta_log``, relative ('/'-separated), sorted."""
    found = []
    for dirpath, dirnames, _ in os.walk(root):
        if "_delta_log" in dirnames:
            found.append(Path(dirpath).relative_to(root).as_posix())
        dirnames[:] = [d for d in dirnames if d != "_delta_log"]
    return sorted(found)


def fixture_tables() -> list[str]:
    """Every Delta table under the fixtures root (folders holding a _delta_log), relative."""
    return tables_under(FIXTURES_ROOT) if fixtures_available() else []


#: ``TXLOG_CONNECT_FIXTURES=all``: the per-fixture tests over Spark Connect take every fixture.
CONNECT_FIXTURES_ENV = "TXLOG_CONNECT_FIXTURES"
#: Over Spark Connect, per-fixture tests take this many fixtures a day (besides those named).
CONNECT_SHARE = 12


def connect_share(tables: list[str], always: set[str] | frozenset[str] = frozenset()
                  ) -> list[str]:
    """``tables`` on a classic session; over Spark Connect, ``always`` and a sample of
    CONNECT_SHARE others drawn with the day's seed (``TXLOG_ORACLE_SEED``), unless
    ``TXLOG_CONNECT_FIXTURES=all``. The server runs the same code as a classic session, which
    takes every fixture: over Connect, what a fixture adds is the transport of its calls and
    answers, which a sample shows (`make test-breadth` takes every one)."""
    if (os.environ.get("TXLOG_TEST_SPARK", "classic") != "connect"
            or os.environ.get(CONNECT_FIXTURES_ENV) == "all"):
        return tables
    import random

    from oracle_recording import sample_seed

    rest = sorted(t for t in tables if t not in always)
    drawn = set(random.Random(sample_seed()).sample(rest, min(CONNECT_SHARE, len(rest))))
    return [t for t in tables if t in always or t in drawn]


def copy_table(src: Path, dst: Path) -> Path:
    """Copies a fixture table to a writable place (fixtures are read-only)."""
    shutil.copytree(src, dst)
    for dirpath, dirnames, filenames in os.walk(dst):
        os.chmod(dirpath, 0o755)
        for f in filenames:
            os.chmod(os.path.join(dirpath, f), 0o644)
    return dst


def commit_file(table: Path, version: int) -> Path:
    return table / "_delta_log" / f"{version:020d}.json"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m txlog --master local[2] ARGS`` as a user runs it: a process of its own, with
    its own JVM (tests/test_cli.py checks the command line that way)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "txlog", "--master", "local[2]", *args],
                          capture_output=True, text=True, env=env, timeout=600)


_cli_lock = threading.Lock()


def run_cli_in_session(spark: Any, *args: str) -> subprocess.CompletedProcess[str]:
    """The same command line run in the JVM of the tests' session, through the facade call that
    ``python -m txlog`` makes, its stdout and stderr captured: the command's results, exit codes
    and progress without starting another Python, JVM and SparkSession (run_cli does that)."""
    from txlog._gateway import java_session, jvm_facade

    jvm = spark._jvm
    system = jvm.java.lang.System
    out, err = jvm.java.io.ByteArrayOutputStream(), jvm.java.io.ByteArrayOutputStream()
    with _cli_lock:
        before = system.out, system.err
        system.setOut(jvm.java.io.PrintStream(out, True, "UTF-8"))
        system.setErr(jvm.java.io.PrintStream(err, True, "UTF-8"))
        try:
            code = int(jvm_facade(spark).cli(java_session(spark), json.dumps(list(args))))
        finally:
            system.setOut(before[0])
            system.setErr(before[1])
    return subprocess.CompletedProcess(list(args), code, out.toString("UTF-8"),
                                       err.toString("UTF-8"))


def stream_copy(spark: Any, source: str, sink: str, checkpoint: str, **options: Any) -> Any:
    """A txlog stream of the table at `source` into a txlog sink at `sink`, drained with
    Trigger.AvailableNow (docs/streaming.md); `options` are the source's. Returns the query."""
    query = (
        spark.readStream.format("txlog")
        .options(**options)
        .load(source)
        .writeStream.format("txlog")
        .option("checkpointLocation", checkpoint)
        .trigger(availableNow=True)
        .start(sink)
    )
    query.awaitTermination()
    return query


def is_dataframe(df: object) -> bool:
    """Whether ``df`` is a pyspark DataFrame, classic or Spark Connect's (which pyspark 3.5's
    DataFrame class is not a base of)."""
    from pyspark.sql import DataFrame

    if isinstance(df, DataFrame):
        return True
    try:
        from pyspark.sql.connect.dataframe import DataFrame as ConnectDataFrame
    except ImportError:  # no Connect client's modules
        return False
    return isinstance(df, ConnectDataFrame)


def error_details() -> bool:
    """Whether a txlog error raised on the server reaches the tests with its ``file`` and
    ``version``: always on a classic session; on Spark Connect, from Spark 4 (Spark 3.5's server
    sends an error's class and message only, docs/connect.md)."""
    import os

    import pyspark

    return (os.environ.get("TXLOG_TEST_SPARK", "classic") != "connect"
            or int(pyspark.__version__.split(".")[0]) >= 4)
