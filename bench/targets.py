"""The issue's targets, checked against one run's figures (a table in RESULTS.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ratio:
    """txlog's figure `key` on `job` ÷ `peer`'s (or ÷ txlog's own figure on `peer` when
    `peer` is a job id), at most `limit`."""

    job: str
    key: str
    peer: str
    limit: float
    label: str = ""  # what the figure is, when not the key's name (warm, cold)

    def describe(self) -> str:
        of = f"txlog {self.peer} warm" if self.peer.startswith("W") else self.peer
        return f"{self.job} {self.label or self.key[:-2]} ≤ {self.limit:g}× {of}"

    def measure(self, figures: dict, runner: str) -> float | None:
        ours = figures.get(runner, {}).get(self.job, {}).get(self.key)
        if self.peer.startswith("W"):
            theirs = figures.get(runner, {}).get(self.peer, {}).get("warm_s")
        else:
            theirs = figures.get(self.peer, {}).get(self.job, {}).get(self.key)
        return None if ours is None or theirs is None else ours / theirs


RATIOS = [
    Ratio("W1", "warm_s", "delta-rs", 0.5),
    Ratio("W1", "warm_s", "delta-spark", 0.25),
    Ratio("W1", "cold_s", "delta-rs", 2.0),
    Ratio("W2", "warm_s", "delta-rs", 0.5),
    Ratio("W2", "warm_s", "delta-spark", 0.25),
    Ratio("W3", "warm_s", "delta-rs", 1.0),
    Ratio("W3", "warm_s", "delta-spark", 0.5),
    Ratio("W5", "warm_s", "W1", 0.1),
    Ratio("W8", "warm_s", "delta-rs", 0.5, "median commit"),
    Ratio("W8", "warm_s", "delta-spark", 0.25, "median commit"),
    # W14: VACUUM of 200k files, 50k unreferenced ("one run": the cold figure, warm beside).
    *(
        Ratio(job, f"{k}_s", "delta-spark", 0.5, f"{what} {k}")
        for job, what in (("W14-dry", "dry run"), ("W14", "vacuum"))
        for k in ("cold", "warm")
    ),
]


def _cell(x: float | None, limit: float) -> tuple[str, str]:
    if x is None:
        return "n/a", "not measured"
    return f"{x:.2f}", "met" if x <= limit else f"missed by {x / limit:.1f}×"


def rows(figures: dict, runner: str) -> list[list[str]]:
    """One row per target: target, measured, verdict."""
    out = []
    for r in RATIOS:
        measured, verdict = _cell(r.measure(figures, runner), r.limit)
        out.append([r.describe(), measured, verdict])
    # W3/W4 checkpoints: the driver heap must not grow with the number of files.
    heaps = [
        (job, f.get("jvm_heap_peak_mb"), f.get("driver_memory"))
        for job in ("W3", "W4-5M-checkpoint", "W4-20M-checkpoint")
        if (f := figures.get(runner, {}).get(job, {})).get("status") == "ok"
    ]
    if heaps:
        shown = ", ".join(f"{j} {h:,.0f} MiB (heap {m})" for j, h, m in heaps if h is not None)
        out.append(["checkpoint driver heap peak does not grow with files", shown, "see figures"])
    for job in ("W4-20M", "W4-20M-checkpoint"):
        f = figures.get(runner, {}).get(job)
        if f is None:
            out.append([f"{job} completes with a driver heap ≤ 2 GiB", "n/a", "not measured"])
            continue
        ok = f.get("status") == "ok"
        done = f"{f.get('warm_s', 0):.1f} s warm, heap {f.get('driver_memory')}" if ok else "–"
        out.append([f"{job} completes with a driver heap ≤ 2 GiB", done,
                    "met" if ok and f.get("driver_memory") in ("1g", "2g") else "missed"])  # fmt: skip
    return out
