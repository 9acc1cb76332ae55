"""A job's figures from its runs' results: medians of the warm and cold runs, peak memory."""

from __future__ import annotations

import statistics


def brief(figure: dict) -> dict:
    """A figure for the progress log: without W15's per-table runs (hundreds of entries)."""
    return {k: v for k, v in figure.items() if k != "tables_runs"}


def summarise(results: list[dict], driver_memory: str, warmup: int) -> dict:
    """Figures from the job results of one or more processes (the first with warm runs, after
    its cold run and `warmup` discarded runs)."""
    bad = next((r for r in results if r["status"] != "ok"), None)
    if bad is not None:
        return {k: bad[k] for k in ("status", "reason", "error", "startup_s") if k in bad}
    warm = [run["seconds"] for run in results[0]["runs"][1 + warmup :]]
    cold = [r["runs"][0]["seconds"] for r in results]
    heaps = [run["jvm_heap_mb"] for r in results for run in r["runs"] if run["jvm_heap_mb"]]
    # The Scala runner has no Python process (python_rss_mb null), delta-rs no JVM.
    rss = [(r["memory"]["python_rss_mb"] or 0) + (r["memory"]["jvm_rss_mb"] or 0) for r in results]
    figure = {
        "status": "ok",
        "warm_s": statistics.median(warm) if warm else None,
        "cold_s": statistics.median(cold),
        "warm_runs_s": warm,
        "cold_runs_s": cold,
        "startup_s": statistics.median(r["startup_s"] for r in results),
        "peak_rss_mb": max(rss),
        "jvm_heap_peak_mb": max(heaps) if heaps else None,
        "driver_memory": driver_memory if results[0]["memory"]["jvm_rss_mb"] else None,
        "runs": f"{len(warm)} warm (after {warmup} warm-up), {len(cold)} cold",
    }
    last = results[0]["runs"][-1]
    if "files_written" in last:  # W10: what the (last) timed write added
        figure.update(files_written=last["files_written"], bytes_written=last["bytes_written"])
    if "files_removed" in last:  # W19 (OPTIMIZE), W11, W20-W22: what the last run changed
        keys = ("files_removed", "files_added", "bytes_added", "dv_files", "operation")
        figure.update({k: last[k] for k in keys if k in last})
    if "tables" in results[0]["runs"][0]:  # W15: each pass's tables, for golden_tables.compare
        figure["tables_runs"] = [run["tables"] for run in results[0]["runs"]]
        figure["warm_from"] = 1 + warmup
    return figure
