"""Starting and stopping run.py's measurement processes (worker.py, or sbt for the Scala
runner), and reading their results."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def launch(argv: list[str], out: Path) -> subprocess.Popen:
    """Starts a process in its own process group (JVM included), its output in out's .log."""
    with open(out.with_suffix(".log"), "w") as sink:
        return subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
            cwd=BENCH.parent, start_new_session=True,
        )  # fmt: skip


def wait(*procs: subprocess.Popen, timeout: float) -> str | None:
    """Waits for the processes to end; why not, if they have not all ended within timeout s."""
    deadline = time.monotonic() + timeout
    try:
        for proc in procs:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout} s"
    return None


def stop(procs: list[subprocess.Popen]) -> None:
    """Kills the process groups of those still running."""
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def read_result(proc: subprocess.Popen, out: Path) -> dict:
    if not out.exists():
        return {"status": "failed", "error": f"exit code {proc.returncode}, see {out.stem}.log"}
    return json.loads(out.read_text())


def job_result(result: dict, task: str, table: Path) -> dict:
    """One job's result from a process result, carrying the process-level fields."""
    process = {k: result[k] for k in ("startup_s", "memory") if k in result}
    if result["status"] != "ok":
        return {**process, **{k: result[k] for k in ("status", "reason", "error") if k in result}}
    job = next(j for j in result["jobs"] if j["task"] == task and j["table"] == str(table))
    return {**process, **job}
