"""A Spark Connect server for the tests, started as a user would start one: ``spark-submit
--class org.apache.spark.sql.connect.service.SparkConnectServer`` with the txlog jar and the
settings ``txlog.connect_server_settings()`` gives (the plugin, the SQL extension and the
catalog).

>>> with connect_server(jar, tmp) as server:
...     spark = SparkSession.builder.remote(server.remote).getOrCreate()
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cluster"))
import standalone  # noqa: E402

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
START_TIMEOUT_S = 180
# As the other suites' sessions: tiny inputs, busy cores.
TEST_CONF = {
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
}


@dataclass(frozen=True)
class Server:
    remote: str
    tmp: Path
    log: Path
    warehouse: Path


def _connect_packages() -> list[str]:
    """``--packages`` with the Connect server of the running pyspark when its jars lack one
    (pyspark 3.5 ships the client only; 4.x ships the server too), as Spark's docs start it."""
    import pyspark

    jars = Path(pyspark.__file__).resolve().parent / "jars"
    if any(jars.glob("spark-connect_*.jar")):
        return []
    scala = next(jars.glob("scala-library-*.jar")).name.split("-")[-1].rsplit(".", 2)[0]
    return ["--packages", f"org.apache.spark:spark-connect_{scala}:{pyspark.__version__}"]


def _listening(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(1)
        return s.connect_ex((standalone.HOST, port)) == 0


@contextlib.contextmanager
def connect_server(jar: str, tmp: Path, conf: dict[str, str] | None = None,
                   java_options: str = "") -> Iterator[Server]:
    """A Connect server of ``jar`` with txlog's settings, ``TEST_CONF`` and ``conf``, listening
    on a free port; stopped on exit. Fails (RuntimeError with the log's tail) when it does not
    start."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
    import txlog

    port = standalone.free_port()
    warehouse = tmp / "warehouse"
    settings = {k: v for k, v in txlog.connect_server_settings().items() if k != "spark.jars"}
    every = {**TEST_CONF, **settings, **(conf or {}),
             "spark.driver.extraJavaOptions": f"-XX:+UseSerialGC {java_options}".strip(),
             "spark.connect.grpc.binding.port": str(port),
             "spark.sql.warehouse.dir": str(warehouse)}
    argv = [str(standalone.venv_bin() / "spark-submit"), "--master", "local[2]",
            "--driver-memory", "1g", "--class", SERVER_CLASS, *_connect_packages()]
    for k, v in every.items():
        argv += ["--conf", f"{k}={v}"]
    log = tmp / "server.log"
    with open(log, "wb") as sink:
        proc = subprocess.Popen([*argv, "--jars", jar, "spark-internal"],
                                env=standalone.spark_env(tmp), stdin=subprocess.DEVNULL,
                                stdout=sink, stderr=sink, cwd=tmp, start_new_session=True)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _listening(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the Connect server did not start:\n{standalone.tail(log, 60)}")
            time.sleep(0.5)
        yield Server(f"sc://{standalone.HOST}:{port}", tmp, log, warehouse)
    finally:
        standalone._signal_group(proc, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            standalone._signal_group(proc, signal.SIGKILL)
            proc.wait()
