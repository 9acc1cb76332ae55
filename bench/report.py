"""bench/RESULTS.md and bench/time_vs_files.png from a results.json document."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import report_sections  # noqa: E402
import targets  # noqa: E402

ENGINE_ORDER = ["txlog", "txlog-scala", "txlog-cds", "txlog-sql", "txlog-baseline", "delta-rs",
                "delta-spark", "spark-floor"]
BASELINE = "txlog-baseline"  # txlog from another checkout (run.py --baseline)
CDS = "txlog-cds"  # txlog with the class data sharing archive of `make cds`
PEERS = ["delta-rs", "delta-spark"]
# The Python API through PySpark; BenchMain via sbt; the Python API with `make cds`'s archive.
TXLOG_RUNNERS = ["txlog", "txlog-scala", "txlog-cds"]


def _num(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:,.{digits}f}"


def _row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _table(header: list[str], rows: list[list]) -> list[str]:
    return [_row(header), _row(["---"] * len(header)), *(_row(r) for r in rows), ""]


def _status(figure: dict) -> str:
    if figure["status"] == "unavailable":
        return f"unavailable ({figure.get('reason', '')})"
    return f"**failed**: {figure.get('error', '')}"


def _ratio(figures: dict, job: str, runner: str, peer: str, key: str) -> str:
    ours, theirs = figures.get(runner, {}).get(job, {}), figures.get(peer, {}).get(job, {})
    if ours.get(key) is None or theirs.get(key) is None:
        return "n/a"
    return f"{ours[key] / theirs[key]:.2f}"


def _before_after(results: dict) -> list[str]:
    """txlog against the baseline checkout timed in the same run (run.py --baseline)."""
    figures = results["figures"]
    if BASELINE not in figures or "txlog" not in figures:
        return []
    lines = ["## Before and after: txlog ÷ txlog-baseline (below 1: faster than before)", ""]
    lines += [f"Baseline: {results.get('baseline')}.", ""]
    return lines + _table(
        ["job", "txlog warm (s)", "baseline warm (s)", "warm ratio", "txlog cold (s)",
         "baseline cold (s)", "cold ratio"],
        [[j, _num(figures["txlog"].get(j, {}).get("warm_s")),
          _num(figures[BASELINE].get(j, {}).get("warm_s")),
          _ratio(figures, j, "txlog", BASELINE, "warm_s"),
          _num(figures["txlog"].get(j, {}).get("cold_s")),
          _num(figures[BASELINE].get(j, {}).get("cold_s")),
          _ratio(figures, j, "txlog", BASELINE, "cold_s")]
         for j in results["jobs"]],
    )  # fmt: skip


def _cds_effect(results: dict) -> list[str]:
    """txlog with `make cds`'s archive (txlog-cds) against txlog without it, cold first."""
    figures = results["figures"]
    if CDS not in figures or "txlog" not in figures:
        return []
    lines = ["## Class data sharing: txlog-cds ÷ txlog (below 1: the archive helps)", ""]
    lines += ["`txlog-cds` starts the driver JVM with `-XX:SharedArchiveFile=` the archive "
              "`make cds` wrote (docs/platforms.md, \"Cold start\"); cold runs show its "
              "effect.", ""]
    jobs = [j for j in results["jobs"] if figures[CDS].get(j, {}).get("status") == "ok"]
    return lines + _table(
        ["job", "txlog-cds cold (s)", "txlog cold (s)", "cold ratio", "txlog-cds warm (s)",
         "txlog warm (s)", "warm ratio"],
        [[j, _num(figures[CDS][j].get("cold_s")), _num(figures["txlog"].get(j, {}).get("cold_s")),
          _ratio(figures, j, CDS, "txlog", "cold_s"), _num(figures[CDS][j].get("warm_s")),
          _num(figures["txlog"].get(j, {}).get("warm_s")),
          _ratio(figures, j, CDS, "txlog", "warm_s")]
         for j in jobs],
    )  # fmt: skip


def _checkpoint_effect(results: dict, engines: list[str]) -> list[str]:
    """W7 (W2's table after a txlog checkpoint) next to W2, per engine."""
    figures = results["figures"]
    if not {"W2", "W7"} <= results["jobs"].keys():
        return []
    lines = ["## Checkpoint effect: W7 ÷ W2 (below 1: the txlog checkpoint speeds loading)", ""]
    rows = []
    for engine in engines:
        w2, w7 = figures[engine].get("W2", {}), figures[engine].get("W7", {})
        cells = [engine]
        for key in ("warm_s", "cold_s"):
            a, b = w2.get(key), w7.get(key)
            cells += [_num(a), _num(b), "n/a" if a is None or b is None else f"{b / a:.2f}"]
        rows.append(cells)
    lines += _table(
        ["engine", "W2 warm (s)", "W7 warm (s)", "warm W7÷W2",
         "W2 cold (s)", "W7 cold (s)", "cold W7÷W2"],
        rows,
    )  # fmt: skip
    for table, m in results["tables"].items():
        if "txlog_checkpoint_s" in m:
            lines += [f"txlog checkpointed `{table}` (a copy of {m['copy_of']}) in "
                      f"{m['txlog_checkpoint_s']:.2f} s before timing.", ""]  # fmt: skip
    return lines


def _commit_latency(results: dict, engines: list[str]) -> list[str]:
    """W8: each engine's commit times."""
    done = {e: f for e in engines if "commits_s" in (f := results["figures"][e].get("W8", {}))}
    if not done:
        return []
    lines = ["## Commit latency (W8): one new file per commit, each commit timed", ""]
    return lines + _table(
        ["engine", "commits", "median (s)", "first (s)", "fastest (s)", "slowest (s)"],
        [[e, len(f["commits_s"]), _num(f["warm_s"], 3), _num(f["cold_s"], 3),
          _num(min(f["commits_s"]), 3), _num(max(f["commits_s"]), 3)]
         for e, f in done.items()],
    )  # fmt: skip


def _contention(results: dict, engines: list[str]) -> list[str]:
    """W9: throughput and retries of writers committing to one table at once."""
    figures = {e: results["figures"][e].get("W9", {}) for e in engines}
    done = {e: f["contention"] for e, f in figures.items() if "contention" in f}
    if not done:
        return []
    lines = ["## Contention (W9): writer processes appending to one table at once", ""]
    lines += _table(
        ["engine", "writers", "seconds", "commits", "commits/s", "commits per writer",
         "retries", "raced commits", "given up", "log listed again"],
        [[e, c["writers"], _num(c["seconds"], 1), c["commits"], _num(c["commits_per_s"]),
          ", ".join(map(str, c["per_writer"])),
          "n/a" if c["retries"] is None else c["retries"], c["raced"], c["gave_up"],
          "n/a" if c.get("relists") is None else c["relists"]]
         for e, c in done.items()],
    )  # fmt: skip
    return lines + [
        "Each writer made one warm-up commit before the common start (not counted). Afterwards "
        "every version after the table's holds exactly one of the commits the writers "
        "reported, warm-up ones included, with no gap and none lost, and delta-rs loads the "
        "table with the expected version, file count and size. Retries: attempts beyond the "
        "first, where the engine reports them (txlog's CommitResult.attempts; delta-spark's "
        "commit and delta-rs's create_write_transaction do not). Raced commits: committed "
        "past the version read + 1, i.e. after losing at least one race. Given up: commits "
        "the engine abandoned when its retries ran out (delta-rs: 15 by default; txlog: "
        "spark.txlog.commit.maxAttempts, 100); the writer then went on with its next file. "
        "Log listed again: delta-rs's own error when a listing of the log, taken while others "
        "commit, misses a version (\"found gap\"; the table is whole), after which the harness "
        "lists again and commits unless the commit had landed (engines/delta_rs.py).",
        "",
    ]


def _method(s: dict) -> str:
    cold = (
        "the first run of the job in that session (only the first job's is a fresh process)"
        if s["shared_session"]
        else f"the first run in a fresh process (median of {s['cold']})"
    )
    shared = "One process per engine ran every job; its peak RSS covers them all. "
    return (
        f"{shared if s['shared_session'] else ''}"
        "Warm: median of the warm runs in the same process, after the cold run and discarded "
        "warm-up runs (JIT compilation of the JVM engines); the Figures table's `runs` column "
        f"says what each job ran (settings: --warm {s['warm']}, --warmup {s.get('warmup', 0)}; "
        "W4, W11, W14 and W17 run once warm without warm-up, W8 and W9 as described). "
        f"Cold: {cold}. Session start-up is excluded from both and shown apart. "
        "Peak RSS: the Python process plus, for Spark engines, the driver JVM (VmHWM). "
        "JVM heap: the sum of the heap pools' peak usage during one operation (includes "
        "uncollected garbage). Spark engines run `local[2]` with 8 shuffle partitions."
    )


def _parts(results: dict) -> str:
    """How an interrupted run was completed (`run.py --resume`), or nothing."""
    parts = results.get("parts")
    if not parts:
        return ""

    def timed(part: dict, engine: str) -> str:  # a part that timed some of an engine's jobs
        done = part.get("jobs", {}).get(engine, [])
        if not done or len(done) == len(results["jobs"]):
            return engine
        which = ", ".join(done) if len(done) <= 24 else f"{done[0]} to {done[-1]}"
        return f"{engine} ({len(done)} of {len(results['jobs'])} jobs: {which})"

    def code(part: dict) -> str:  # the commit the part timed, when it was recorded
        return f" (txlog at {part['txlog_commit']})" if part.get("txlog_commit") else ""

    def again(part: dict) -> str:  # jobs a part timed again (`--retime`)
        jobs = part.get("retimed")
        if not jobs:
            return ""
        return f" (re-timing {', '.join(jobs)}: these figures replace an earlier part's)"

    each = "; ".join(
        f"part {i} started {p['started']}{code(p)}, took {p.get('seconds', 0):,.0f} s and timed "
        f"{', '.join(timed(p, e) for e in p['engines']) or 'no engine'}{again(p)}"
        for i, p in enumerate(parts, 1)
    )
    return (
        f", in {len(parts)} parts on the same settings and tables (the run was resumed with "
        f"`--resume`, each part timing the engines and jobs it names: {each})"
    )


def markdown(results: dict, plot_name: str) -> str:
    figures, jobs = results["figures"], results["jobs"]
    engines = [e for e in ENGINE_ORDER if e in figures]
    lines = [
        "# txlog benchmark results",
        "",
        f"Generated by `bench/run.py` ({results['mode']} mode) on {results['date']}"
        + (f" (txlog at {results['txlog_commit']})"
           if results.get("txlog_commit") and not results.get("parts") else "")
        + f" in {results['total_s']:,.0f} s{_parts(results)}. Regenerate with `make bench` (or "
        "`make bench-smoke`); see bench/README.md for the method."
        + (" Smoke-scale figures check the harness; do not compare engines with them."
           if results["mode"] == "smoke" else ""),
        "",
        _method(results["settings"]),
        "",
        "## Machine",
        "",
        *(f"- {k}: {v}" for k, v in results["machine"].items()),
        "",
        "## Tables",
        "",
    ]  # fmt: skip
    lines += _table(
        ["table", "version", "live files", "total size (bytes)", "generated in (s)"],
        [
            [f"`{t}`", m["version"] if m["version"] is not None else "–", f"{m['num_files']:,}",
             _num(m["size_in_bytes"], 0), m["generate_s"]]
            for t, m in results["tables"].items()
        ],
    )  # fmt: skip
    lines += ["## Verification (loaded before timing; file count, size and version checked)", ""]
    verification = results["verification"]
    lines += _table(
        ["table", *verification],
        [[f"`{t}`", *(verification[e].get(t, "–") for e in verification)]
         for t in results["tables"]],
    )  # fmt: skip
    lines += ["## Figures", ""]
    rows = []
    for job_id, job in jobs.items():
        for engine in engines:
            f = figures[engine].get(job_id, {"status": "unavailable", "reason": "not run"})
            head = [f"{job_id}", engine]
            if f["status"] != "ok":
                rows.append(head + [_status(f)] + [""] * 7)
                continue
            rows.append(head + [
                _num(f["warm_s"]), _num(f["cold_s"]), _num(f["startup_s"], 1),
                _num(f["peak_rss_mb"], 0), _num(f["jvm_heap_peak_mb"], 0),
                f["driver_memory"] or "–", f"{job['files']:,}", f.get("runs", "–"),
            ])  # fmt: skip
    lines += _table(
        ["job", "engine", "warm (s)", "cold (s)", "start-up (s)", "peak RSS (MiB)",
         "JVM heap peak (MiB)", "driver heap", "files (W15: tables)", "runs"],
        rows,
    )  # fmt: skip
    lines += [*(f"- {j}: {job['description']}" for j, job in jobs.items()), ""]
    lines += ["## Ratios: txlog ÷ peer (below 1: txlog is faster)", ""]
    runners = [e for e in [*TXLOG_RUNNERS, BASELINE] if e in figures] or TXLOG_RUNNERS[:1]
    lines += _table(
        ["job", "txlog runner", *(f"{k} vs {p}" for k in ("warm", "cold") for p in PEERS)],
        [[j, r, *(_ratio(figures, j, r, p, f"{k}_s") for k in ("warm", "cold") for p in PEERS)]
         for j in jobs for r in runners],
    )  # fmt: skip
    for runner in (r for r in TXLOG_RUNNERS if r in figures):
        lines += [f"## Targets ({runner})", ""]
        lines += _table(["target", "measured", "verdict"], targets.rows(figures, runner))
    lines += report_sections.floor(results, runners)
    lines += report_sections.golden(results, engines)
    lines += report_sections.stats_effect(results, engines)
    lines += report_sections.writes(results, engines)
    lines += report_sections.optimize(results, engines)
    lines += report_sections.dml(results, engines)
    lines += _before_after(results)
    lines += _cds_effect(results)
    lines += _checkpoint_effect(results, engines)
    lines += _commit_latency(results, engines)
    lines += _contention(results, engines)
    lines += ["## Load time against file count (W1 shape)", "", f"![load time]({plot_name})", ""]
    return "\n".join(lines)


def plot(results: dict, path: Path) -> None:
    """Load time of the checkpointed tables (W1, W4) against live files, per engine."""
    loads = {
        j: job
        for j, job in results["jobs"].items()
        if j == "W1" or (j.startswith("W4") and not j.endswith(("-checkpoint", "-files")))
    }
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for color, engine in enumerate(e for e in ENGINE_ORDER if e in results["figures"]):
        for key, style in (("warm_s", "-o"), ("cold_s", "--x")):
            points = sorted(
                (job["files"], f[key])
                for j, job in loads.items()
                if (f := results["figures"][engine].get(j, {})).get(key) is not None
            )
            if points:
                xs, ys = zip(*points, strict=True)
                ax.plot(xs, ys, style, color=f"C{color}", label=f"{engine} ({key[:-2]})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("live files")
    ax.set_ylabel("load time (s)")
    ax.set_title(f"Snapshot load: checkpoint + 100 commits ({results['mode']} run)")
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write(results: dict, markdown_path: Path, plot_path: Path) -> None:
    plot(results, plot_path)
    markdown_path.write_text(markdown(results, plot_path.name))
