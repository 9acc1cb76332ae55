"""The machine and software versions a run was measured on."""

from __future__ import annotations

import os
import platform
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from engines.delta_spark import DELTA_SPARK_PACKAGE


def _package(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def _java() -> str:
    try:
        out = subprocess.run(["java", "-version"], capture_output=True, text=True, check=True)
        return out.stderr.splitlines()[0]
    except (OSError, subprocess.CalledProcessError):
        return "not found"


def _memory_gib() -> float:
    with open("/proc/meminfo") as f:
        kib = int(next(line for line in f if line.startswith("MemTotal:")).split()[1])
    return round(kib / 2**20, 1)


def describe() -> dict:
    return {
        "cores": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "pyspark": _package("pyspark"),
        "deltalake": _package("deltalake"),
        "delta-spark": DELTA_SPARK_PACKAGE,
        "java": _java(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def _git(checkout: Path, *args: str) -> str:
    run = subprocess.run(["git", "-C", str(checkout), *args], capture_output=True, text=True)
    return run.stdout.strip()


def describe_checkout(checkout: Path) -> str:
    """The baseline checkout's commit, as `git log` shows it in one line."""
    line = _git(checkout, "log", "-1", "--format=%h %ad %s", "--date=short")
    return f"{checkout.resolve()} at {line[:120] or 'an unknown commit'}"


def txlog_commit(checkout: Path) -> str:
    """The commit txlog's code was at when a run (or a part of one) started: its short hash, and
    a warning when the sources or the Python package differ from it."""
    head = _git(checkout, "rev-parse", "--short", "HEAD") or "an unknown commit"
    dirty = _git(checkout, "status", "--porcelain", "--", "src", "python", "build.sbt", "project")
    return head + (" with uncommitted changes to the sources" if dirty else "")
