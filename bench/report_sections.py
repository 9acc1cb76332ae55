"""Sections of RESULTS.md for issue #13's measurements: the bare-scan floor beside txlog (W1,
W4), the golden tables (W15) and the effect of stats (each job beside its `-nostats` row); for
issue #32's, the writes (W10); OPTIMIZE of small files (W19); and for issue #63's, row-level DML
(W20-W22 and their copy-on-write variants)."""

from __future__ import annotations

FLOOR = "spark-floor"


def _num(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:,.{digits}f}"


def _div(a: float | None, b: float | None) -> str:
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def _table(header: list[str], rows: list[list]) -> list[str]:
    def row(cells) -> str:
        return "| " + " | ".join(str(c) for c in cells) + " |"

    return [row(header), row(["---"] * len(header)), *(row(r) for r in rows), ""]


def floor(results: dict, runners: list[str]) -> list[str]:
    """txlog's load time beside the bare Spark scan of the same checkpoint and JSON tail."""
    figures, jobs = results["figures"], results["jobs"]
    floors = {j: f for j, f in figures.get(FLOOR, {}).items() if f.get("status") == "ok"}
    if not floors:
        return []
    lines = ["## Floor: txlog ÷ a bare Spark scan of the same files (W1, W3, W4)", "",
             f"`{FLOOR}` lists `_delta_log`, scans the checkpoint's `add.path` and `add.size` "
             "(count, sum) and reads the JSON tail's adds and removes (count, sum) with a fixed "
             "schema: no reconciliation, no Delta logic. The `-files` jobs (txlog listing the "
             "files) are set beside the same floor. W3's floor reads the same checkpoint and "
             "tail whole (the tail with the checkpoint's schema) and writes them back as parquet "
             "in one job, unreconciled.", ""]  # fmt: skip
    rows = []
    for job in jobs:
        base = job.removesuffix("-files")
        if base not in floors:
            continue
        f = floors[base]
        for runner in runners:
            ours = figures.get(runner, {}).get(job, {})
            rows.append([job, runner, _num(ours.get("warm_s")), _num(f["warm_s"]),
                         _div(ours.get("warm_s"), f["warm_s"]), _num(ours.get("cold_s")),
                         _num(f["cold_s"]), _div(ours.get("cold_s"), f["cold_s"])])  # fmt: skip
    return lines + _table(
        ["job", "txlog runner", "txlog warm (s)", "floor warm (s)", "warm ratio",
         "txlog cold (s)", "floor cold (s)", "cold ratio"],
        rows,
    )  # fmt: skip


def golden(results: dict, engines: list[str]) -> list[str]:
    """W15: totals and median per table over the tables every engine loaded alike."""
    lines: list[str] = []
    for job, g in (results.get("golden") or {}).items():
        if not g:
            continue
        figures = {e: results["figures"][e].get(job, {}) for e in engines}
        lines += [f"## {job}: {g['tables']} golden tables loaded in turn in one process", "",
                  f"Compared over the {len(g['compared'])} tables every engine below loaded "
                  "with the same version, file count and size. Cold: the first pass in the "
                  "process; warm: the median of the later passes.", ""]  # fmt: skip
        lines += _table(
            ["engine", "total warm (s)", "total cold (s)", "median per table warm (s)",
             "median per table cold (s)", "tables it could not load"],
            [[e, _num(f.get("warm_s")), _num(f.get("cold_s")),
              _num(f.get("median_table_warm_s"), 4), _num(f.get("median_table_cold_s"), 4),
              len(g["skipped"].get(e, {}))]
             for e, f in figures.items() if f.get("status") == "ok"],
        )  # fmt: skip
        for engine, skipped in g["skipped"].items():
            if skipped:
                lines += [f"{engine} could not load:", ""]
                lines += [f"- `{name}`: {error.splitlines()[0][:200] if error else ''}"
                          for name, error in skipped.items()]  # fmt: skip
                lines += [""]
        if g["disagree"]:
            lines += ["Loaded with different (version, files, size), left out:", ""]
            lines += [f"- `{name}`: {counts}" for name, counts in g["disagree"].items()]
            lines += [""]
    return lines


def stats_effect(results: dict, engines: list[str]) -> list[str]:
    """Each job with realistic stats beside its stat-less variant, per engine."""
    jobs = [j for j in results["jobs"] if f"{j}-nostats" in results["jobs"]]
    if not jobs:
        return []
    lines = ["## Stats effect: with ten-column stats ÷ without (`-nostats`)", ""]
    rows = []
    for job in jobs:
        for e in engines:
            a = results["figures"][e].get(job, {})
            b = results["figures"][e].get(f"{job}-nostats", {})
            if a.get("status") == "ok" and b.get("status") == "ok":
                rows.append([job, e, _num(a["warm_s"]), _num(b["warm_s"]),
                             _div(a["warm_s"], b["warm_s"]), _num(a["cold_s"]),
                             _num(b["cold_s"]), _div(a["cold_s"], b["cold_s"])])  # fmt: skip
    return lines + _table(
        ["job", "engine", "warm (s)", "nostats warm (s)", "warm ratio", "cold (s)",
         "nostats cold (s)", "cold ratio"],
        rows,
    )  # fmt: skip


def writes(results: dict, engines: list[str]) -> list[str]:
    """W10: each engine's write of the same rows, what it wrote, and txlog's ratios."""
    jobs = [j for j in results["jobs"] if j.startswith("W10")]
    rows = []
    for job in jobs:
        table = results["tables"][results["jobs"][job]["table"]]
        figures = {e: results["figures"][e].get(job, {}) for e in engines}
        spark, rs = (figures.get(p, {}).get("warm_s") for p in ("delta-spark", "delta-rs"))
        for e, f in figures.items():
            if f.get("status") != "ok":
                continue
            warm = f["warm_s"]
            rows.append([job, e, _num(warm), _num(f["cold_s"]), f.get("files_written", "–"),
                         _num((f.get("bytes_written") or 0) / 2**20, 1),
                         _num(table["rows"] / warm if warm else None, 0),
                         _div(warm, spark), _div(warm, rs)])  # fmt: skip
    if not rows:
        return []
    lines = ["## Writes (W10): the same rows written by each engine", "",
             "Files and MiB: the live files the (last) timed write added and their size. Each "
             "run wrote a fresh table and read it back afterwards: the aggregate over every "
             "column equalled the expected one (bench/write_data.py).", ""]  # fmt: skip
    return lines + _table(
        ["job", "engine", "warm (s)", "cold (s)", "files", "MiB", "rows/s (warm)",
         "warm ÷ delta-spark", "warm ÷ delta-rs"],
        rows,
    )  # fmt: skip


def optimize(results: dict, engines: list[str]) -> list[str]:
    """W19: each engine's OPTIMIZE of the same small files, what it removed and added, and
    txlog's ratios."""
    if "W19" not in results["jobs"]:
        return []
    table = results["tables"][results["jobs"]["W19"]["table"]]
    figures = {e: results["figures"][e].get("W19", {}) for e in engines}
    spark, rs = (figures.get(p, {}).get("warm_s") for p in ("delta-spark", "delta-rs"))
    rows = [[e, _num(f["warm_s"]), _num(f["cold_s"]), _num(f.get("files_removed"), 0),
             _num(f.get("files_added"), 0), _num((f.get("bytes_added") or 0) / 2**20, 1),
             _div(f["warm_s"], spark), _div(f["warm_s"], rs)]
            for e, f in figures.items() if f.get("status") == "ok"]  # fmt: skip
    if not rows:
        return []
    lines = [f"## Optimize (W19): {table['num_files']:,} small files compacted by each engine",
             "",
             f"The table delta-spark wrote: {table['rows']:,} rows in {table['num_files']:,} "
             f"files of {table['size_in_bytes'] / 2**20:,.1f} MiB, {table['partitions']} "
             "partitions. Each run compacted a fresh copy with the engine's default settings; "
             "files removed and added are what the engine reported for the (last) timed run, "
             "MiB the live files' size afterwards. Each run was checked afterwards: one new "
             "version removing every file and adding one per partition, and the rows read back "
             "by the engine aggregated to the expected answer (bench/optimize_files.py).",
             ""]  # fmt: skip
    return lines + _table(
        ["engine", "warm (s)", "cold (s)", "files removed", "files added", "MiB after",
         "warm ÷ delta-spark", "warm ÷ delta-rs"],
        rows,
    )  # fmt: skip


def dml(results: dict, engines: list[str]) -> list[str]:
    """W20-W22 (and `-cow`): each engine's DELETE, MERGE and UPDATE of the same table, what its
    commit removed and added (deletion vectors or rewritten files), and txlog's ratios."""
    jobs = [j for j in results["jobs"] if j.split("-")[0] in ("W20", "W21", "W22")]
    rows = []
    for job in jobs:
        figures = {e: results["figures"][e].get(job, {}) for e in engines}
        spark, rs = (figures.get(p, {}).get("warm_s") for p in ("delta-spark", "delta-rs"))
        rows += [[job, e, _num(f["warm_s"]), _num(f["cold_s"]), f.get("operation") or "–",
                  _num(f.get("files_removed"), 0), _num(f.get("files_added"), 0),
                  _num(f.get("dv_files"), 0), _div(f["warm_s"], spark), _div(f["warm_s"], rs)]
                 for e, f in figures.items() if f.get("status") == "ok"]  # fmt: skip
    if not rows:
        return []
    table = results["tables"][results["jobs"][jobs[0]]["table"]]
    lines = ["## Row-level DML (W20-W22): DELETE, MERGE and UPDATE of the same table", "",
             f"The table delta-spark wrote: {table['rows']:,} rows in {table['num_files']:,} "
             f"files of {table['size_in_bytes'] / 2**20:,.1f} MiB, unpartitioned; W20-W22 with "
             "deletion vectors enabled, the `-cow` jobs on the same rows without them. Each run "
             "changed a fresh copy from its path; the commit's removes and adds (and the adds "
             "carrying a deletion vector) are those of the (last) timed run. Each run was "
             "checked afterwards: exactly one new version, and the rows read back by the engine "
             "aggregated to the answer computed from the ids (bench/dml_table.py).",
             ""]  # fmt: skip
    return lines + _table(
        ["job", "engine", "warm (s)", "cold (s)", "operation", "files removed", "files added",
         "with a deletion vector", "warm ÷ delta-spark", "warm ÷ delta-rs"],
        rows,
    )  # fmt: skip
