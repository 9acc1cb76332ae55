"""The end of `make test`: each part's time and exit status, then the 20 slowest tests of each
runner (ScalaTest's and pytest's), read from target/test-logs (written by build/lane).

Usage: python build/test_summary.py [target/test-logs]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SLOWEST = 20
# ScalaTest (-oD): "- a test name (1 minute, 2 seconds, 345 milliseconds)"
SCALATEST = re.compile(r"^\[info\] - (.*) \(((?:\d+ \w+,? ?)+)\)$")
UNITS = {"minute": 60.0, "minutes": 60.0, "second": 1.0, "seconds": 1.0,
         "millisecond": 0.001, "milliseconds": 0.001}
# pytest --durations: "12.34s call     tests/test_x.py::test_y[param]"
PYTEST = re.compile(r"^(\d+\.\d+)s (call|setup|teardown)\s+(\S.*)$")
# Closing counts: ScalaTest's "Tests: succeeded 9, failed 0, canceled 1, ignored 0, pending 0"
# and pytest's "378 passed, 1 failed, 19 skipped in 602.09s".
SCALATEST_COUNTS = re.compile(r"Tests: succeeded (\d+), failed (\d+), canceled (\d+), "
                              r"ignored (\d+)")
PYTEST_COUNTS = re.compile(r"^=*\s*(\d+ \w+(?:, \d+ \w+)*) in [\d.]+s")


def seconds(text: str) -> float:
    return sum(int(n) * UNITS[u] for n, u in re.findall(r"(\d+) (\w+)", text))


def clock(s: float) -> str:
    return f"{int(s) // 60}:{int(s) % 60:02d}"


def slowest(log: Path) -> list[tuple[float, str]]:
    # ScalaTest's lines name no suite, and the forked JVMs' lines interleave: test names only.
    found: list[tuple[float, str]] = []
    for line in log.read_text(errors="replace").splitlines():
        if m := SCALATEST.match(line):
            found.append((seconds(m.group(2)), m.group(1)))
        elif m := PYTEST.match(line):
            found.append((float(m.group(1)), f"{m.group(3)} ({m.group(2)})"))
    return sorted(found, reverse=True)[:SLOWEST]


def counts(log: Path) -> tuple[int, int, int]:
    """(passed, failed, skipped) as the runner's closing line in ``log`` says."""
    passed = failed = skipped = 0
    for line in log.read_text(errors="replace").splitlines():
        if m := SCALATEST_COUNTS.search(line):
            passed += int(m.group(1))
            failed += int(m.group(2))
            skipped += int(m.group(3)) + int(m.group(4))
        elif m := PYTEST_COUNTS.match(line):
            for n, what in re.findall(r"(\d+) (\w+)", m.group(1)):
                if what == "passed":
                    passed += int(n)
                elif what in ("failed", "error", "errors"):
                    failed += int(n)
                elif what in ("skipped", "xfailed", "xpassed", "deselected"):
                    skipped += int(n)
    return passed, failed, skipped


def cpu_seconds(f: Path) -> float | None:
    """User plus system CPU seconds of a part, from GNU time's "%U %S" (None without it)."""
    try:
        user, system = f.read_text().split()[-2:]
        return float(user) + float(system)
    except (OSError, ValueError):
        return None


def main(logs: Path) -> None:
    times = [line.split() for f in sorted(logs.glob("*.time")) for line in f.read_text().split("\n")
             if line.strip()]
    if not times:
        return
    print("\n==== make test: time per part ====")
    cpu_total = 0.0
    for name, start, end, code in sorted(times, key=lambda t: int(t[1])):
        status = "passed" if code == "0" else f"FAILED (exit {code})"
        cpu = cpu_seconds(logs / f"{name}.cpu")
        cpu_total += cpu or 0.0
        used = f"  CPU {clock(round(cpu)):>6}" if cpu is not None else ""
        print(f"  {name:<12} {clock(int(end) - int(start)):>6}{used}  {status}")
    wall = max(int(t[2]) for t in times) - min(int(t[1]) for t in times)
    used = f"  CPU {clock(round(cpu_total)):>6}" if cpu_total else ""
    print(f"  {'all parts':<12} {clock(wall):>6}{used}  (side by side)")
    totals = [0, 0, 0]
    for name, *_ in sorted(times):
        log = logs / f"{name}.log"
        rows = slowest(log) if log.is_file() else []
        if rows:
            print(f"\n==== {name}: the {len(rows)} slowest tests ====")
            for s, what in rows:
                print(f"  {s:8.2f}s  {what}")
        if log.is_file():
            totals = [a + b for a, b in zip(totals, counts(log))]
    print(f"\ntests: {totals[0]} passed, {totals[1]} failed, {totals[2]} skipped")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "target/test-logs"))
