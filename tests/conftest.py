"""One SparkSession for the whole suite, configured with txlog.configure_spark."""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

import pytest

from txlog_testing import FIXTURES_MISSING, FIXTURES_ROOT, REPO_ROOT, fixtures_available

# Test the package of this checkout, even when another txlog is installed.
sys.path.insert(0, str(REPO_ROOT / "python"))

import txlog  # noqa: E402
from txlog import _jar  # noqa: E402
from txlog._jar import find_jar  # noqa: E402
from txlog.errors import TxlogError  # noqa: E402


def _prefer_fresh_checkout_jar() -> None:
    """In a checkout, `make jar` copies the jar into python/txlog/jars/, which the package
    prefers; when `sbt package` rebuilt target/ since, test the newer jar instead."""
    if os.environ.get(_jar.ENV_VAR):
        return
    line = _jar.spark_line()
    paths = [p for p in _jar.candidate_paths(line=line, scala=_jar.scala_binary(line))
             if p.is_file()]
    if len(paths) == 2 and paths[1].stat().st_mtime > paths[0].stat().st_mtime:
        os.environ[_jar.ENV_VAR] = str(paths[1])


_prefer_fresh_checkout_jar()


def pytest_report_header(config: pytest.Config) -> str:
    try:
        return f"txlog jar: {find_jar()}"
    except TxlogError as e:
        return f"txlog jar: unavailable ({e.error_class})"


# The driver JVM runs in a zone other than UTC so that local-time handling is exercised.
JVM_TIME_ZONE = "Asia/Kolkata"


@pytest.fixture(scope="session")
def txlog_jar() -> str:
    """The jar under test; fails with the build hint when it was not built."""
    try:
        return find_jar()
    except TxlogError as e:  # JarNotFoundError, JarVersionMismatchError
        pytest.fail(f"{e}\n(`make test` builds the jar before running the tests.)", pytrace=False)


#: ``TXLOG_TEST_SPARK=connect``: the suites' ``spark`` is a Spark Connect session of a server
#: started for them (tests/connect/connect_server.py), and tests marked ``classic_only`` (they
#: reach into the JVM through py4j) are not collected; on classic, those marked
#: ``connect_only``.
CONNECT = os.environ.get("TXLOG_TEST_SPARK", "classic") == "connect"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    other = "classic_only" if CONNECT else "connect_only"
    kept = [i for i in items if i.get_closest_marker(other) is None]
    dropped = [i for i in items if i.get_closest_marker(other) is not None]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(scope="session")
def lane_server(txlog_jar: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """On Spark Connect (``TXLOG_TEST_SPARK=connect``): the Connect server the suites' ``spark``
    is a client of (tests/connect/connect_server.py's ``Server``), one for the whole lane, so
    that a test needing the server itself (its warehouse, its log, a client process of its own)
    does not start another. Skips on classic."""
    if not CONNECT:
        pytest.skip("the Connect lane's server: TXLOG_TEST_SPARK=connect")
    sys.path.insert(0, str(REPO_ROOT / "tests" / "connect"))
    from connect_server import connect_server

    conf = {"spark.sql.session.timeZone": JVM_TIME_ZONE}
    with connect_server(txlog_jar, tmp_path_factory.mktemp("connect-server"), conf,
                        f"-Duser.timezone={JVM_TIME_ZONE}") as server:
        yield server


@pytest.fixture(scope="session")
def spark(txlog_jar: str,  # first: fails with the build hint when the jar is not built
          request: pytest.FixtureRequest) -> Iterator["SparkSession"]:  # noqa: F821
    from pyspark.sql import SparkSession

    if CONNECT:
        server = request.getfixturevalue("lane_server")
        session = SparkSession.builder.remote(server.remote).getOrCreate()
        yield session
        session.stop()
        return
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("txlog-python-tests")
        # Settings for tiny inputs, as the Scala suites' (TestSpark): one shuffle partition per
        # core, no code generation (compiling each plan costs more than it saves), the serial
        # collector (the CI machine's two cores are busy with the Scala lane too).
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.extraJavaOptions",
                f"-Duser.timezone={JVM_TIME_ZONE} -XX:+UseSerialGC")
        .config("spark.sql.session.timeZone", JVM_TIME_ZONE)
    )
    session = txlog.configure_spark(builder).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def jvm_zone(spark: "SparkSession") -> str:  # noqa: F821
    """The driver JVM's default time zone id."""
    if CONNECT:
        return JVM_TIME_ZONE  # the server's, as _connect_session starts it
    return str(spark._jvm.java.util.TimeZone.getDefault().getID())


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """The root of the shared Delta fixtures (read-only); skips when absent."""
    if not fixtures_available():
        pytest.skip(FIXTURES_MISSING)
    return FIXTURES_ROOT


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "classic_only: reaches into the JVM through py4j, or is the classic lane's "
        "share; not run on Spark Connect")
    config.addinivalue_line(
        "markers", "connect_only: the Spark Connect transport's own; run on Spark Connect only")
    # pyspark.testing warns about pandas 3 on import (chispa imports it); not our concern.
    config.addinivalue_line(
        "filterwarnings", "ignore:PySpark does not yet fully support pandas:FutureWarning")


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # type: ignore[no-untyped-def]
    """Per-table agreement counts with delta-rs."""
    counts: Counter[str] = Counter()
    labels = {"passed": "agree", "failed": "disagree or txlog-error", "skipped": "delta-rs refuses"}
    for outcome, label in labels.items():
        for rep in terminalreporter.stats.get(outcome, []):
            if "test_agrees_with_delta_rs" in getattr(rep, "nodeid", "") and rep.when in (
                    "call", "setup"):
                counts[label] += 1
    xfailed = [r for r in terminalreporter.stats.get("xfailed", [])
               if "test_agrees_with_delta_rs" in getattr(r, "nodeid", "")]
    if xfailed:
        counts["known txlog bug (xfail)"] = len(xfailed)
    if counts:
        terminalreporter.write_sep("-", "agreement with delta-rs (tables)")
        terminalreporter.write_line(", ".join(f"{k}: {v}" for k, v in counts.items()))
