"""The Scala runner (engine `txlog-scala`): the main class txlog.bench.BenchMain
(bench/scala/txlog/bench/), run through sbt as the build's `bench` project, which depends on
txlog and has Spark on its classpath (the test sources are not compiled for it).

It takes the same arguments and writes the same JSON result as bench/worker.py (see
bench/README.md); its JVM heap is set with -Xmx (local mode: the driver is that JVM):

    build/sbt 'set bench/Compile/run/javaOptions += "-Xmx4g"' \\
      'bench/runMain txlog.bench.BenchMain --job load T [--job TASK T ...] --runs N --out R.json'
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MAIN_CLASS = "txlog.bench.BenchMain"
SOURCE = REPO / "bench" / "scala" / "txlog" / "bench" / "BenchMain.scala"
#: The worker.py tasks BenchMain runs (BenchTasks.names); the others are unavailable for it.
TASKS = frozenset({"load", "load_files", "checkpoint", "checkpoint_in_place", "update",
                   "time_travel", "golden", "golden_files", "plan_partition", "plan_data",
                   "read_rows"})


def available() -> bool:
    """Whether this checkout has the runner's sources."""
    return SOURCE.is_file()


def command(work: list[tuple[str, Path]], runs: int, driver_memory: str, out: Path) -> list[str]:
    args = [*(f"--job {task} {table}" for task, table in work), f"--runs {runs}", f"--out {out}"]
    return [
        str(REPO / "build" / "sbt"),
        f'set bench/Compile/run/javaOptions += "-Xmx{driver_memory}"',
        f"bench/runMain {MAIN_CLASS} {' '.join(args)}",
    ]
