"""W15: many small real tables loaded in turn in one process, as a notebook or a maintenance
job over a catalog does. The tables are delta-spark's golden tables (the fixtures' golden/
folder, every directory holding a `_delta_log`), copied once under bench/out/tables/w15-golden/
so that no engine touches the fixtures.

Each run loads every table once, in a fixed order, each timed on its own; a table an engine
cannot load is recorded with its error and skipped. `compare` then keeps, for the figures, only
the tables every engine of the run loaded with the same version, file count and size, so that
engines are compared over the same work: total = the sum over those tables, and the median
time per table.
"""

from __future__ import annotations

import os
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import gen_logs

FIXTURES = Path(os.environ.get("TXLOG_BENCH_GOLDEN", "/work/shared/fixtures/golden"))
VERSION = 1


def w15() -> gen_logs.Table:
    """The copy of the golden tables, made once (its manifest lists the tables)."""
    directory = gen_logs.OUT / "w15-golden"
    manifest_file = directory / "manifest.json"
    if manifest_file.exists():
        table = gen_logs.Table(directory / "table", gen_logs.manifest(directory / "table"))
        if table.manifest.get("generator") == VERSION:
            return table
    shutil.rmtree(directory, ignore_errors=True)
    started = time.perf_counter()
    shutil.copytree(FIXTURES, directory / "table")  # keeps the files' modification times
    names = sorted(
        str(log.parent.relative_to(directory / "table"))
        for log in (directory / "table").rglob("_delta_log")
        if log.is_dir()
    )
    manifest = {
        "generator": VERSION, "source": str(FIXTURES), "tables": names, "version": None,
        "num_files": len(names), "size_in_bytes": None,
        "generate_s": round(time.perf_counter() - started, 2),
    }  # fmt: skip
    gen_logs.write_manifest(directory / "table", manifest)
    return gen_logs.Table(directory / "table", manifest)


def run(engine, root: Path, manifest: dict, timed: Callable, files: bool) -> dict:
    """One pass: every table loaded in turn (with `files`, its file list collected). The run's
    `seconds` is the sum over the tables the engine loaded; `tables` has each table's time and
    counts, or its error."""
    load = engine.collect_files if files else engine.load
    tables: dict[str, dict] = {}
    heaps = []
    for name in manifest["tables"]:
        try:
            counts, run = timed(engine, lambda n=name: load(str(root / n)))
        except Exception as e:  # an engine that cannot read a table: recorded, not fatal
            first = (str(e).strip().splitlines() or [""])[0]  # delta-rs appends a backtrace
            tables[name] = {"error": f"{type(e).__name__}: {first[:300]}"}
            continue
        heaps += [run["jvm_heap_mb"]] if run["jvm_heap_mb"] is not None else []
        tables[name] = {
            "seconds": run["seconds"], "version": counts.version,
            "num_files": counts.num_files, "size_in_bytes": counts.size_in_bytes,
        }  # fmt: skip
    loaded = [t["seconds"] for t in tables.values() if "seconds" in t]
    return {"seconds": sum(loaded), "jvm_heap_mb": max(heaps) if heaps else None,
            "tables": tables}  # fmt: skip


def _counts(entry: dict) -> tuple:
    return entry["version"], entry["num_files"], entry["size_in_bytes"]


def compare(figures: dict, job: str) -> dict | None:
    """For a W15 job: the tables every engine with figures loaded with the same counts; the
    ones each engine skipped; disagreements. Rewrites each engine's warm/cold figures as totals
    over the compared tables and adds the median per table (warm, cold)."""
    done = {e: f[job] for e, f in figures.items() if f.get(job, {}).get("tables_runs")}
    if not done:
        return None
    first = {e: f["tables_runs"][0] for e, f in done.items()}
    names = sorted(set().union(*(t.keys() for t in first.values())))
    skipped = {e: {n: t[n]["error"] for n in names if "error" in t.get(n, {"error": "absent"})}
               for e, t in first.items()}  # fmt: skip
    loaded_by_all = [n for n in names if not any(n in s for s in skipped.values())]
    disagree = {n: {e: _counts(t[n]) for e, t in first.items()} for n in loaded_by_all
                if len({_counts(t[n]) for t in first.values()}) > 1}  # fmt: skip
    compared = [n for n in loaded_by_all if n not in disagree]
    for f in done.values():
        warm_runs = f["tables_runs"][f["warm_from"]:]

        def total(run: dict) -> float:
            return sum(run[n]["seconds"] for n in compared)

        def median(run: dict) -> float | None:
            return statistics.median(run[n]["seconds"] for n in compared) if compared else None

        f["cold_s"] = total(f["tables_runs"][0])
        f["cold_runs_s"] = [f["cold_s"]]
        f["warm_runs_s"] = [total(r) for r in warm_runs]
        f["warm_s"] = statistics.median(f["warm_runs_s"]) if warm_runs else None
        f["median_table_cold_s"] = median(f["tables_runs"][0])
        meds = [m for m in (median(r) for r in warm_runs) if m is not None]
        f["median_table_warm_s"] = statistics.median(meds) if meds else None
    disagreeing = {n: {e: list(c) for e, c in d.items()} for n, d in disagree.items()}
    return {"tables": len(names), "compared": compared, "skipped": skipped,
            "disagree": disagreeing}  # fmt: skip
