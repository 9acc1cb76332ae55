"""A Spark standalone cluster on this machine for the cluster test, and spark-submit against it.

The master and the workers are the pinned pyspark's own classes started through its
``bin/spark-class`` as child processes (pyspark ships no ``sbin/start-master.sh``), each in a
session of its own so that stopping a worker's process group also stops the executors it
launched. Everything binds to 127.0.0.1 on free ports; work, local and log directories live in
one temporary directory. ``StandaloneCluster`` is a context manager: the processes are stopped
on exit, whatever happened, and on SIGTERM too.

    with StandaloneCluster(tmp_dir, workers=2, cores=1, memory="3g") as cluster:
        submit(cluster.url, jar, py_files, job, args, tmp_dir, log_file, conf)
        submit_class(cluster.url, jar, "txlog.cli.Main", argv, tmp_dir, out_file, log_file, conf)
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"
START_TIMEOUT_S = 120


def venv_bin() -> Path:
    """The bin directory of the Python running the tests (the project's venv)."""
    return Path(sys.executable).parent


def pyspark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def spark_env(tmp: Path) -> dict[str, str]:
    """The environment for Spark's scripts: the venv's bin first on PATH (pyspark's launcher
    finds Spark with the first python3 there), the venv's Python for drivers and executors,
    everything bound to 127.0.0.1, scratch directories under ``tmp``; no PYTHONPATH (the
    txlog package reaches the job through --py-files only) and no SPARK_HOME of another Spark."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "SPARK_HOME", "SPARK_CONF_DIR", "TXLOG_JAR")}
    bin_dir = venv_bin()
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYSPARK_PYTHON"] = str(bin_dir / "python")
    env["PYSPARK_DRIVER_PYTHON"] = str(bin_dir / "python")
    env["SPARK_LOCAL_IP"] = HOST
    for name, sub in (("SPARK_LOCAL_DIRS", "local"), ("SPARK_LOG_DIR", "logs"),
                      ("SPARK_PID_DIR", "pids")):
        (tmp / sub).mkdir(parents=True, exist_ok=True)
        env[name] = str(tmp / sub)
    return env


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"({path} unreadable)"


@dataclass
class StandaloneCluster:
    """A master and ``workers`` workers of ``cores`` cores and ``memory`` each."""

    tmp: Path
    workers: int = 2
    cores: int = 1
    memory: str = "3g"
    daemon_memory: str = "512m"
    url: str = ""
    web_url: str = ""
    _procs: list[tuple[str, subprocess.Popen[bytes], Path]] = field(default_factory=list)

    def __enter__(self) -> StandaloneCluster:
        self._previous_sigterm = signal.getsignal(signal.SIGTERM)
        if self._previous_sigterm in (signal.SIG_DFL, None):
            # A SIGTERM to the test run unwinds through __exit__ instead of orphaning them.
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
        signal.signal(signal.SIGTERM, self._previous_sigterm or signal.SIG_DFL)

    def _spawn(self, name: str, args: list[str]) -> None:
        env = spark_env(self.tmp)
        env["SPARK_DAEMON_MEMORY"] = self.daemon_memory
        log = self.tmp / "logs" / f"{name}.log"
        with open(log, "wb") as sink:
            proc = subprocess.Popen(
                [str(pyspark_home() / "bin" / "spark-class"), *args], env=env,
                stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                start_new_session=True)
        self._procs.append((name, proc, log))

    def _start(self) -> None:
        # The master binds ports of its own choosing (0) and its log names them: a port drawn
        # free here could be taken before the master binds it, and the master would then move
        # to the next one while the workers were told the first.
        self._spawn("master", ["org.apache.spark.deploy.master.Master", "--host", HOST,
                               "--port", "0", "--webui-port", "0"])
        self.url, self.web_url = self._master_urls()
        for i in range(self.workers):
            work = self.tmp / f"worker-{i}"
            work.mkdir(parents=True, exist_ok=True)
            self._spawn(f"worker-{i}", [
                "org.apache.spark.deploy.worker.Worker", "--host", HOST, "--port", "0",
                "--webui-port", "0", "--cores", str(self.cores), "--memory", self.memory,
                "--work-dir", str(work), self.url])
        self._wait_for_workers()

    def _master_urls(self) -> tuple[str, str]:
        """The master's RPC and web UI addresses as its log states them once it has bound."""
        name, proc, log = self._procs[0]
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"the {name} exited with {proc.returncode}:\n{tail(log)}")
            text = log.read_text(errors="replace")
            rpc = re.search(r"Starting Spark master at (spark://\S+:\d+)", text)
            web = re.search(r"MasterWebUI.*?(http://\S+:\d+)", text)
            if rpc and web:
                return rpc.group(1), web.group(1).replace("localhost", HOST)
            time.sleep(0.5)
        raise RuntimeError(f"the master named no address within {START_TIMEOUT_S} s:\n"
                           f"{tail(log)}")

    def _wait_for_workers(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        alive = 0
        while time.monotonic() < deadline:
            for name, proc, log in self._procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"the {name} exited with {proc.returncode}:\n{tail(log)}")
            try:
                with urllib.request.urlopen(f"{self.web_url}/json/", timeout=5) as r:
                    state = json.load(r)
                alive = int(state.get("aliveworkers", 0))
                if alive >= self.workers and state.get("status") == "ALIVE":
                    return
            except (OSError, ValueError):
                pass
            time.sleep(1)
        logs = "\n".join(f"--- {n}\n{tail(log)}" for n, _, log in self._procs)
        raise RuntimeError(f"{alive} of {self.workers} workers registered within "
                           f"{START_TIMEOUT_S} s:\n{logs}")

    def stop(self) -> None:
        """Stops the workers (and their executors), then the master: SIGTERM to each process
        group, SIGKILL to what is left after 30 s."""
        procs = list(reversed(self._procs))  # workers first
        for _, proc, _ in procs:
            if proc.poll() is None:
                _signal_group(proc, signal.SIGTERM)
        deadline = time.monotonic() + 30
        for _, proc, _ in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            _signal_group(proc, signal.SIGKILL)  # executors still in the group, if any
            proc.wait()
        self._procs.clear()

    def completed_app(self, app_id: str) -> dict[str, Any] | None:
        """The master's record of a finished application (id, name, state, cores...)."""
        with urllib.request.urlopen(f"{self.web_url}/json/", timeout=10) as r:
            apps = json.load(r).get("completedapps", [])
        return next((a for a in apps if a.get("id") == app_id), None)

    def workers_that_ran(self, app_id: str) -> list[int]:
        """The workers that launched an executor for the application (each keeps one work
        directory per application)."""
        return [i for i in range(self.workers) if (self.tmp / f"worker-{i}" / app_id).is_dir()]

    def logs(self) -> str:
        return "\n".join(f"--- {n} ({log})\n{tail(log)}" for n, _, log in self._procs)


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def package_zip(package_dir: Path, target: Path) -> Path:
    """The txlog Python package as a zip for --py-files: its sources, without the jar copy
    (the jar goes by --jars) and without caches."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(package_dir.rglob("*")):
            rel = p.relative_to(package_dir.parent)
            if p.is_file() and "jars" not in rel.parts and "__pycache__" not in rel.parts:
                zf.write(p, rel.as_posix())
    return target


@dataclass
class Submission:
    returncode: int
    seconds: float
    log: Path


def submit(master: str, jar: str, py_files: Path, job: Path, args: list[str], tmp: Path,
           log: Path, conf: dict[str, str], driver_memory: str = "1g",
           timeout_s: float = 900) -> Submission:
    """``spark-submit --master MASTER --jars JAR --py-files ZIP JOB ARGS`` with the venv's bin
    first on PATH, as docs/operations.md tells users; its output goes to ``log``."""
    argv = _submit_argv(master, driver_memory, conf,
                        ["--jars", jar, "--py-files", str(py_files)], [str(job), *args])
    with open(log, "wb") as sink:
        return _run(argv, tmp, sink, sink, log, timeout_s)


def submit_class(master: str, jar: str, main_class: str, args: list[str], tmp: Path,
                 out: Path, log: Path, conf: dict[str, str], driver_memory: str = "1g",
                 timeout_s: float = 900) -> Submission:
    """``spark-submit --master MASTER --class MAIN_CLASS JAR ARGS`` (the jar is the
    application: Spark ships it to the executors); stdout goes to ``out``, stderr to ``log``."""
    argv = _submit_argv(master, driver_memory, conf, ["--class", main_class], [jar, *args])
    with open(out, "wb") as stdout, open(log, "wb") as stderr:
        return _run(argv, tmp, stdout, stderr, log, timeout_s)


def _submit_argv(master: str, driver_memory: str, conf: dict[str, str], options: list[str],
                 application: list[str]) -> list[str]:
    argv = [str(venv_bin() / "spark-submit"), "--master", master, "--deploy-mode", "client",
            "--driver-memory", driver_memory, *options]
    for k, v in conf.items():
        argv += ["--conf", f"{k}={v}"]
    return argv + application


def _run(argv: list[str], tmp: Path, stdout: Any, stderr: Any, log: Path,
         timeout_s: float) -> Submission:
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=spark_env(tmp), stdin=subprocess.DEVNULL, stdout=stdout,
                            stderr=stderr, cwd=tmp, start_new_session=True)
    try:
        code = proc.wait(timeout=timeout_s)
    except BaseException:
        _signal_group(proc, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)
            proc.wait()
        raise
    return Submission(code, round(time.perf_counter() - started, 1), log)
