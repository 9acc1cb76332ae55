"""The issues' targets, checked against one run's figures (a table per txlog runner in
RESULTS.md): issue #13's (ratios to delta-rs unless said, both load paths: counts and the file
list), the earlier ones it keeps, issue #31's (W12, W13: ratios to delta-spark), issue #32's
(W10, writing rows: ratios to delta-spark; delta-rs's ratio is reported, with no target), W19's
(OPTIMIZE of small files: the same), issue #63's (W20-W22, row-level DML on a table with deletion
vectors: the same; the copy-on-write variants are reported, with no target), issue #66's (small
work on the driver: cold loads, W16-W2, W1 and W3 against the floor) and "no worse than now" for
the other workloads."""

from __future__ import annotations

from dataclasses import dataclass

RS, SPARK, FLOOR, OWN = "delta-rs", "delta-spark", "spark-floor", "own"


@dataclass(frozen=True)
class Ratio:
    """txlog's figure `key` on `job` ÷ `peer`'s on `peer_job` (default: the same job), at most
    `limit`. `peer` OWN means the same txlog runner's warm figure on `peer_job`."""

    job: str
    key: str
    peer: str
    limit: float
    label: str = ""  # what the figure is, when not the key's name (warm, cold)
    peer_job: str | None = None
    why: str = ""  # where the limit comes from, when not the issue's own number

    def describe(self) -> str:
        of = {OWN: f"txlog {self.peer_job} warm", FLOOR: f"the bare-scan floor ({FLOOR})"}
        peer = of.get(self.peer, self.peer)
        if self.peer_job and self.peer not in (OWN,):
            peer += f" {self.peer_job}"
        note = f" ({self.why})" if self.why else ""
        return f"{self.job} {self.label or self.key[:-2]} ≤ {self.limit:g}× {peer}{note}"

    def measure(self, figures: dict, runner: str) -> float | None:
        ours = figures.get(runner, {}).get(self.job, {}).get(self.key)
        peer_job = self.peer_job or self.job
        if self.peer == OWN:
            theirs = figures.get(runner, {}).get(peer_job, {}).get("warm_s")
        else:
            theirs = figures.get(self.peer, {}).get(peer_job, {}).get(self.key)
        return None if ours is None or theirs is None else ours / theirs


NOW = "as now: bench/RESULTS.md and history/"  # txlog's ratio before issue #13
RATIOS = [
    # Issue #13, for both load paths (W1 and W1-files, ...).
    *(
        r
        for suffix in ("", "-files")
        for r in (
            Ratio(f"W1{suffix}", "warm_s", RS, 0.5),
            Ratio(f"W1{suffix}", "warm_s", FLOOR, 2.0, peer_job="W1"),
            Ratio(f"W1{suffix}", "cold_s", RS, 1.5, "cold (fresh JVM, session start excluded)"),
            Ratio(f"W2{suffix}", "warm_s", RS, 0.5),
            Ratio(f"W7{suffix}", "warm_s", RS, 1.5),
            Ratio(f"W15{suffix}", "median_table_warm_s", RS, 1.5, "median per table (warm)"),
            Ratio(f"W4-5M{suffix}", "warm_s", RS, 0.35, why=NOW),
            Ratio(f"W4-20M{suffix}", "warm_s", RS, 0.14, why=NOW),
        )
    ),
    Ratio("W3", "warm_s", RS, 1.0, "checkpoint"),
    Ratio("W4-5M-checkpoint", "warm_s", RS, 0.8, "checkpoint"),
    Ratio("W4-20M-checkpoint", "warm_s", OWN, 4.2, "checkpoint", peer_job="W4-5M-checkpoint"),
    # Earlier issues' targets, kept.
    Ratio("W1", "warm_s", SPARK, 0.25),
    Ratio("W2", "warm_s", SPARK, 0.25),
    Ratio("W3", "warm_s", SPARK, 0.5),
    Ratio("W5", "warm_s", OWN, 0.1, peer_job="W1"),
    Ratio("W8", "warm_s", RS, 0.5, "median commit"),
    Ratio("W8", "warm_s", SPARK, 0.25, "median commit"),
    # Issue #31: planning scans (W12) and reading rows with deletion vectors (W13).
    Ratio("W12-partition", "warm_s", SPARK, 0.25, "plan, partition filter"),
    Ratio("W12-data", "warm_s", SPARK, 0.25, "plan, data filter"),
    Ratio("W13", "warm_s", SPARK, 1.0, "full read"),
    *(
        Ratio(job, f"{k}_s", SPARK, 0.5, f"{what} {k}")
        for job, what in (("W14-dry", "dry run"), ("W14", "vacuum"))
        for k in ("cold", "warm")
    ),
    # Issue #32: writing 10M rows to a partitioned table (W10).
    Ratio("W10-append", "warm_s", SPARK, 1.1, "write (warm)"),
    Ratio("W10-overwrite", "warm_s", SPARK, 1.1, "write (warm)"),
    # OPTIMIZE of 20,000 small files into ~100 (W19).
    Ratio("W19", "warm_s", SPARK, 1.0, "optimize (warm)"),
    # Issue #63: DELETE, MERGE and UPDATE of a 10M-row, 200-file table with deletion vectors
    # (W20-W22); the copy-on-write variants (-cow) and delta-rs are reported, with no target.
    Ratio("W20", "warm_s", SPARK, 0.8, "delete of 0.1% (warm)"),
    Ratio("W21", "warm_s", SPARK, 1.0, "merge upsert (warm)"),
    Ratio("W22", "warm_s", SPARK, 1.0, "update of 1% (warm)"),
    # Issue #64: a stream draining 10,000 one-file commits with Trigger.AvailableNow (W23).
    Ratio("W23", "warm_s", SPARK, 0.5, "stream drain (warm)"),
    # Issue #33: the first load of a fresh job, small tables, contention, vacuum, object stores
    # (W16: 20 ms added to every request; W18: a log of 1M objects, beside one of 1,000) and
    # 100M files (W17). Jobs not built yet show "not measured".
    *(Ratio(j, "cold_s", RS, 1.0, "cold, without the archive") for j in ("W1", "W2", "W6", "W7")),
    Ratio("W2-files", "warm_s", RS, 0.5),
    Ratio("W6", "warm_s", RS, 0.5),
    Ratio("W15", "median_table_warm_s", RS, 1.0, "median per table (warm)"),
    Ratio("W15-files", "median_table_warm_s", RS, 2.0, "median per table (warm)"),
    Ratio("W9", "warm_s", RS, 2.0, "seconds per commit (>= 0.5x its commits/s)"),
    Ratio("W14", "warm_s", RS, 1.0, "vacuum warm"),
    Ratio("W14", "cold_s", RS, 2.0, "vacuum cold"),
    *(
        Ratio(f"W16-{j}", "warm_s", RS, 0.5, "load behind 20 ms a request")
        for j in ("W1", "W2", "W7")
    ),
    Ratio("W18", "warm_s", OWN, 1.2, "1M log objects", peer_job="W18-1k"),
    Ratio("W17-checkpoint", "warm_s", OWN, 5.5, "checkpoint", peer_job="W4-20M-checkpoint"),
    # Issue #66: the driver does small work without Spark jobs. Its W2 cold, W6 warm, W15,
    # W15-files, W9 and W14 targets are the same as issue #33's above; where it relaxes one
    # (W6 and W7 cold, W16-W2) its own limit is a row of its own. The cold loads that must run
    # Spark jobs are set against the floor's cold time on the same files (W3's floor also
    # writes them back: engines/spark_floor.py).
    Ratio("W6", "cold_s", RS, 1.5, "cold"),
    Ratio("W7", "cold_s", RS, 2.0, "cold"),
    Ratio("W16-W2", "warm_s", RS, 0.8, "load behind 20 ms a request"),
    Ratio("W1", "cold_s", FLOOR, 1.1, "cold"),
    Ratio("W3", "cold_s", FLOOR, 1.1, "checkpoint cold"),
    # No worse than now (txlog's ratio to delta-rs in the last full runs).
    Ratio("W5", "warm_s", RS, 0.02, why=NOW),
    Ratio("W6", "warm_s", RS, 0.83, why=NOW),
    Ratio("W8", "warm_s", RS, 0.08, "median commit", why=NOW),
    Ratio("W9", "warm_s", RS, 15.79, "seconds per commit", why=NOW),
    Ratio("W14-dry", "warm_s", RS, 4.05, "dry run warm", why=NOW),
    Ratio("W14", "warm_s", RS, 2.64, "vacuum warm", why=NOW),
]


def _cell(x: float | None, limit: float) -> tuple[str, str]:
    if x is None:
        return "n/a", "not measured"
    return f"{x:.2f}", "met" if x <= limit else f"missed by {x / limit:.1f}×"


def _heap_gib(f: dict) -> float | None:
    """The heap the job ran with (its -Xmx), in GiB."""
    m = f.get("driver_memory") or ""
    units = {"g": 1.0, "m": 1 / 1024}
    return float(m[:-1]) * units[m[-1]] if m[-1:] in units and m[:-1].isdigit() else None


def rows(figures: dict, runner: str) -> list[list[str]]:
    """One row per target: target, measured, verdict."""
    out = []
    for r in RATIOS:
        measured, verdict = _cell(r.measure(figures, runner), r.limit)
        out.append([r.describe(), measured, verdict])
    for job in ("W4-20M", "W4-20M-files", "W4-20M-checkpoint", "W11", "W17", "W17-files",
                "W17-checkpoint"):
        f = figures.get(runner, {}).get(job)
        label = f"{job} completes with a driver heap ≤ 2 GiB"
        if f is None:
            out.append([label, "n/a", "not measured"])
            continue
        ok = f.get("status") == "ok"
        heap = _heap_gib(f)
        peak = f.get("jvm_heap_peak_mb")
        done = (f"{f.get('warm_s') or 0:.1f} s warm, heap {f.get('driver_memory')}, peak "
                f"{peak or 0:,.0f} MiB") if ok else "–"  # fmt: skip
        met = ok and heap is not None and heap <= 2
        out.append([label, done, "met" if met else "missed"])
    return out
