"""W9, contention: WRITERS processes of one engine (worker.py's `contend` task) commit one new
file per commit to one table at the same time.

The start barrier is the directory `barrier` beside the table: each writer, once its session is
up, the table open and a warm-up commit made, creates `ready-<pid>` there; run.py then writes
`go` (the common start time and the duration) and every writer commits from that start until
the duration is over.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

WRITERS = 4
WRITER_MEMORY = "1g"  # the driver heap of each writer: the W9 table is small
START_DELAY_S = 1.0  # from opening the barrier to the common start


def barrier(table: Path) -> Path:
    return table.parent / "barrier"


def open_barrier(
    table: Path, writers: list[subprocess.Popen], seconds: float, timeout: float
) -> str | None:
    """Waits until every writer is ready, then sets the common start and the duration. Returns
    why not when a writer ended first or they were not all ready within `timeout` s."""
    deadline = time.monotonic() + timeout
    while len(list(barrier(table).glob("ready-*"))) < len(writers):
        if any(w.poll() is not None for w in writers):
            return "a writer ended before the start"
        if time.monotonic() > deadline:
            return f"the writers were not ready within {timeout} s"
        time.sleep(0.1)
    staged = barrier(table) / "go.staged"
    staged.write_text(json.dumps({"start": time.time() + START_DELAY_S, "seconds": seconds}))
    os.replace(staged, barrier(table) / "go")  # writers never read a partial file
    return None


def ready_then_wait(table: Path) -> tuple[float, float]:
    """A writer's side: says it is ready, waits for the common start; returns the start and end
    times (epoch seconds)."""
    (barrier(table) / f"ready-{os.getpid()}").touch()
    go = barrier(table) / "go"
    while not go.exists():
        time.sleep(0.01)
    plan = json.loads(go.read_text())
    time.sleep(max(0.0, plan["start"] - time.time()))
    return plan["start"], plan["start"] + plan["seconds"]


def figures(runs: list[dict], versions: dict[str, int]) -> dict:
    """The W9 figures from the writers' runs (their warm-up commits left out) and the version
    each committed file got in the log: `warm_s` is the time per commit of the table (so ratios
    compare throughput), the rest under `contention`. Retries are known only where every commit
    reports its attempts (txlog); a raced commit landed past its read version + 1 (it lost at
    least one race); given up: commits the engine abandoned when its retries ran out."""
    commits = [c for run in runs for c in run["commits"]]
    elapsed = max(run["seconds"] for run in runs)
    attempts = [c["attempts"] for c in commits]
    relists = [c.get("relists") for c in commits]
    return {
        "warm_s": elapsed / len(commits) if commits else None,
        "cold_s": None,
        "cold_runs_s": [],
        "contention": {
            "writers": len(runs),
            "seconds": elapsed,
            "commits": len(commits),
            "commits_per_s": len(commits) / elapsed,
            "per_writer": [len(run["commits"]) for run in runs],
            "retries": None if None in attempts else sum(a - 1 for a in attempts),
            "raced": sum(versions[c["path"]] > c["read_version"] + 1 for c in commits),
            "gave_up": sum(run["gave_up"] for run in runs),
            "relists": None if None in relists else sum(relists),
        },
    }
