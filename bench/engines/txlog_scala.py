"""Hook for the Scala runner: the main class txlog.bench.BenchMain, run through sbt.

Until a source file defines `object BenchMain` under src/, the engine is unavailable.
Contract (same arguments and JSON result as bench/worker.py, see bench/README.md):

    build/sbt 'set Test/javaOptions += "-Xmx4g"' \
      'Test/runMain txlog.bench.BenchMain --job load T [--job TASK T ...] --runs N --out R.json'
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MAIN_CLASS = "txlog.bench.BenchMain"


def available() -> bool:
    return any(
        "object BenchMain" in f.read_text(errors="replace") for f in (REPO / "src").rglob("*.scala")
    )


def command(work: list[tuple[str, Path]], runs: int, driver_memory: str, out: Path) -> list[str]:
    args = [*(f"--job {task} {table}" for task, table in work), f"--runs {runs}", f"--out {out}"]
    return [
        str(REPO / "build" / "sbt"),
        f'set Test/javaOptions += "-Xmx{driver_memory}"',
        f"Test/runMain {MAIN_CLASS} {' '.join(args)}",
    ]
