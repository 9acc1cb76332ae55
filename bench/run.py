"""Runs the benchmark: generates the tables, checks that delta-rs and delta-spark load them,
times every workload on every engine, and writes bench/out/results.json, bench/RESULTS.md
and bench/time_vs_files.png.

    .venv/bin/python bench/run.py --smoke     # every workload at small scale, a few minutes
    .venv/bin/python bench/run.py             # full scale (W4 at 20M files: hours)
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import signal
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import appends
import contention
import gen_logs
import golden_tables
import jobs
import machine
import resume
import s3_jobs
from figures import brief, summarise
import worker
from engines import txlog_py, txlog_scala
from processes import job_result, launch, read_result, stop, wait

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out"
WORKER = BENCH / "worker.py"
PEERS = ["delta-rs", "delta-spark"]
FLOOR = "spark-floor"  # a bare Spark scan of what W1/W4 read (engines/spark_floor.py)
CDS = "txlog-cds"  # txlog with the class data sharing archive of `make cds`
ENGINES = ["txlog", "txlog-scala", CDS, *PEERS, FLOOR]
BASELINE = "txlog-baseline"  # txlog from another checkout (--baseline), timed in the same run
# txlog's W12 / W13 scans through the DataSource V2 table (`--engines txlog txlog-sql`); not in
# the default list: its other jobs are txlog's own
SQL = "txlog-sql"


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


class Runner:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.logs = OUT / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.count = 0
        self.kept = lambda engine, job_id, figure: None  # main: saves each figure as it comes

    def process(self, engine: str, work: list[tuple[str, Path]], runs: int, memory: str) -> dict:
        """One fresh process (worker.py, or sbt for the Scala runner) running each (task,
        table) job `runs` times in one session; returns its result (see worker.py)."""
        out = self.result_file(engine)
        if engine == "txlog-scala":
            if not txlog_scala.available():
                return {"status": "unavailable",
                        "reason": f"no {txlog_scala.MAIN_CLASS} in bench/scala/"}
            argv = txlog_scala.command(work, runs, memory, out)
        else:
            argv = self.worker_command(engine, work, runs, memory, out)
        proc = launch(argv, out)
        try:
            error = wait(proc, timeout=self.args.timeout)
        finally:  # also on Ctrl-C or SIGTERM: leave no worker or JVM behind
            stop([proc])
        return {"status": "failed", "error": error} if error else read_result(proc, out)

    def result_file(self, engine: str) -> Path:
        """Where the next process writes its result (its log beside it, as .log)."""
        self.count += 1
        out = self.logs / f"{self.count:03d}-{engine}.json"
        out.unlink(missing_ok=True)
        return out

    def worker_command(
        self, engine: str, work: list[tuple[str, Path]], runs: int, memory: str, out: Path
    ) -> list[str]:
        argv = [sys.executable, str(WORKER), "--engine", engine, "--runs", str(runs)]
        argv += [a for task, table in work for a in ("--job", task, str(table))]
        argv += ["--driver-memory", memory, "--out", str(out)]
        return argv + ["--max-memory-gb", str(self.args.max_memory_gb)]

    def memory_for(self, engine: str, job: jobs.Job) -> str:
        if engine.startswith("txlog") and job.id.startswith(("W4", "W11", "W17")):
            return self.args.txlog_w4_driver_memory
        return self.args.driver_memory

    def verify(self, engine: str, tables: list[gen_logs.Table], known: dict[str, str]) -> None:
        """Loads every table once (and time-travels where the manifest says how), checking
        the file count, size and version, and adds a verdict per table to `known` (those it
        holds, from a part this one resumes, are not loaded again). W15's tables are
        compared afterwards; W10 has no input table (each run checks the table it wrote)."""
        tables = [t for t in tables if not {"tables", "write"} & t.manifest.keys()
                  and str(t.path.relative_to(BENCH)) not in known]  # fmt: skip
        if not tables:
            return
        log(f"verifying that {engine} loads the generated tables (W15 is compared afterwards)")
        verdicts = {str(t.path): "ok" for t in tables}
        for t in tables:  # a process per table: one that exhausts the heap spoils no other
            work = [("load", t.path)]
            work += [("time_travel", t.path)] if "time_travel" in t.manifest else []
            result = self.process(engine, work, 1, self.args.driver_memory)
            for task, table in work:
                job = job_result(result, task, table)
                if job["status"] != "ok" and verdicts[str(table)] == "ok":
                    verdicts[str(table)] = f"{task}: {job.get('error') or job.get('reason')}"
        known.update({str(Path(t).relative_to(BENCH)): v for t, v in verdicts.items()})
        log(f"  {known}")

    def checkpoint_with_txlog(self, table: gen_logs.Table) -> str:
        """Prepares a W7 table: txlog writes a checkpoint of its latest version in place
        (before, and apart from, any timing). Returns "ok" or why it failed."""
        work = [("checkpoint_in_place", table.path)]
        job = job_result(self.process("txlog", work, 1, self.args.driver_memory), *work[0])
        if job["status"] != "ok":
            return f"txlog checkpoint: {job.get('error') or job.get('reason')}"
        table.manifest["txlog_checkpoint_s"] = round(job["runs"][0]["seconds"], 2)
        gen_logs.write_manifest(table.path, table.manifest)
        return "ok"

    def measure(self, engine: str, selected: list[jobs.Job]) -> dict[str, dict]:
        """Figures per job: W8 and W9 in processes of their own (commit_latency,
        contended_appends), the others in a series of fresh processes per job, or with
        --shared-session one process running them all in turn."""
        own = {"commits": self.commit_latency, "contention": self.contended_appends}
        figures = {
            j.id: {"status": "unavailable", "reason": "not in the Scala runner"}
            for j in selected
            if engine == "txlog-scala" and j.task not in txlog_scala.TASKS
        }
        figures.update({
            j.id: {"status": "unavailable", "reason": "the floor is measured for W1, W3, W4 only"}
            for j in selected
            if engine == FLOOR and not jobs.floor_job(j)
        })  # fmt: skip
        figures.update({
            j.id: {"status": "unavailable", "reason": "W8 and W9 are timed without the archive"}
            for j in selected
            if engine == CDS and j.task in own
        })  # fmt: skip
        selected = [j for j in selected if j.id not in figures]
        figures.update(self.measure_series(engine, [j for j in selected if j.task not in own]))
        for j in (j for j in selected if j.task in own):
            log(f"{engine} {j.id} ({j.task}, {jobs.human(j.files)} files)")
            figures[j.id] = own[j.task](engine, j)
            log(f"  {figures[j.id]}")
            self.kept(engine, j.id, figures[j.id])
        return figures

    def measure_series(self, engine: str, selected: list[jobs.Job]) -> dict[str, dict]:
        if self.args.shared_session:
            return self.shared(engine, selected) if selected else {}
        figures: dict[str, dict] = {}
        for j in selected:
            log(f"{engine} {j.id} ({j.task}, {jobs.human(j.files)} files)")
            figure = figures[j.id] = self.series(engine, j)
            log(f"  {brief(figure)}")
            self.kept(engine, j.id, figure)
            if figure["status"] == "unavailable" and "startup_s" not in figure:  # no engine
                for rest in selected:
                    figures.setdefault(rest.id, figure)
                break
        return figures

    def series(self, engine: str, j: jobs.Job) -> dict:
        """`cold` fresh processes: the first runs the job 1 + warmup + warm times (its first
        run is cold, the next `warmup` runs are discarded, the rest are the warm figures), the
        others run it once."""
        memory = self.memory_for(engine, j)
        work = [(j.task, j.table.path)]
        # W4 (5M, 20M files), W14: one warm run, no warm-up; runs take minutes for the peers.
        warm, warmup = (1, 0) if jobs.few_runs(j, engine) else (self.args.warm, self.args.warmup)
        results = [job_result(self.process(engine, work, 1 + warmup + warm, memory), *work[0])]
        while len(results) < self.args.cold and results[-1]["status"] == "ok":
            results.append(job_result(self.process(engine, work, 1, memory), *work[0]))
        return summarise(results, memory, warmup)

    def shared(self, engine: str, selected: list[jobs.Job]) -> dict[str, dict]:
        w4 = [j for j in selected if j.id.startswith("W4")]  # its heap applies to all jobs
        memory = self.memory_for(engine, w4[0] if w4 else selected[0])
        log(f"{engine}: {len(selected)} jobs in one session")
        work = [(j.task, j.table.path) for j in selected]
        result = self.process(engine, work, 1 + self.args.warmup + self.args.warm, memory)
        figures = {}
        for j, (task, table) in zip(selected, work, strict=True):
            figures[j.id] = summarise([job_result(result, task, table)], memory, self.args.warmup)
            log(f"  {j.id}: {brief(figures[j.id])}")
        return figures

    def commit_latency(self, engine: str, j: jobs.Job) -> dict:
        """W8: one process committing appends.W8_COMMITS single-file appends (worker.py
        run_commits). Warm: the median commit; cold: the first commit."""
        memory = self.memory_for(engine, j)
        work = [(j.task, j.table.path)]
        result = job_result(self.process(engine, work, 1, memory), *work[0])
        figure = summarise([result], memory, 0)
        if figure["status"] == "ok":
            commits = result["runs"][0]["commits_s"]
            figure.update(warm_s=statistics.median(commits), cold_s=commits[0], commits_s=commits,
                          runs=f"{len(commits)} commits in one process")
        return figure

    def contended_appends(self, engine: str, j: jobs.Job) -> dict:
        """W9: contention.WRITERS worker processes of the engine (task `contend`) commit to one
        fresh copy of the table from a common start for --w9-seconds; then, untimed, the log
        and delta-rs's load of the copy are checked (verify_appends)."""
        with worker.scratch_copy(j.table.path) as copy:
            gen_logs.write_manifest(copy, j.table.manifest)
            contention.barrier(copy).mkdir()
            work, memory = [("contend", copy)], contention.WRITER_MEMORY
            outs = [self.result_file(engine) for _ in range(contention.WRITERS)]
            writers = [launch(self.worker_command(engine, work, 1, memory, o), o) for o in outs]
            try:
                error = contention.open_barrier(
                    copy, writers, self.args.w9_seconds, self.args.timeout
                ) or wait(*writers, timeout=self.args.w9_seconds + self.args.timeout)
            finally:
                stop(writers)
            if error:
                return {"status": "failed", "error": error}
            results = [job_result(read_result(w, o), *work[0]) for w, o in zip(writers, outs)]
            figure = summarise(results, memory, 0)
            if figure["status"] != "ok":
                return figure
            runs = [r["runs"][0] for r in results]
            commits = [c for run in runs for c in run["warmup"] + run["commits"]]
            versions = self.verify_appends(copy, j.table.manifest, commits)
            if isinstance(versions, str):
                return {"status": "failed", "error": f"not verified: {versions}"}
        figure["runs"] = f"one run of {contention.WRITERS} writer processes"
        return {**figure, **contention.figures(runs, versions)}

    def verify_appends(self, copy: Path, manifest: dict, commits: list[dict]) -> dict | str:
        """After W9: the log holds every commit reported, at contiguous versions
        (appends.check), and delta-rs loads the copy with the expected version, file count and
        size. Returns each committed path's version, or what is wrong."""
        try:
            versions = appends.check(copy, manifest["version"], commits)
        except appends.LogMismatch as e:
            return str(e)
        gen_logs.write_manifest(copy, appends.after(manifest, len(commits)))
        work = [("load", copy)]
        job = job_result(self.process("delta-rs", work, 1, self.args.driver_memory), *work[0])
        if job["status"] != "ok":
            return f"delta-rs load: {job.get('error') or job.get('reason')}"
        return versions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="small scale, shared sessions")
    parser.add_argument(
        "--shared-session", action="store_true",
        help="one process per engine runs every job (default with --smoke): cold figures are "
        "then first runs in a shared session, not in fresh processes",
    )  # fmt: skip
    parser.add_argument("--warm", type=int, help="warm runs after the warm-up (default 5; smoke 1)")
    parser.add_argument(
        "--max-memory-gb", type=int, default=16,
        help="address-space limit of delta-rs workers (GiB): a peer that would exhaust the "
        "machine fails with an allocation error instead",
    )  # fmt: skip
    parser.add_argument(
        "--warmup", type=int, help="runs discarded after the cold run (default 2; smoke 0)"
    )
    parser.add_argument("--cold", type=int, help="fresh processes per figure (default 3)")
    parser.add_argument("--engines", nargs="+", choices=[*ENGINES, BASELINE, SQL])
    parser.add_argument(
        "--baseline", type=Path, metavar="DIR",
        help="another txlog checkout with its jar built (e.g. `git worktree add DIR <commit>`, "
        "then `make jar` in it), timed as engine txlog-baseline: before and after in one run",
    )  # fmt: skip
    parser.add_argument("--only", nargs="+", metavar="JOB", help="job ids, e.g. W1 W4-5M")
    resume.add_arguments(parser)
    parser.add_argument("--driver-memory", default="4g", help="Spark driver heap (peers)")
    parser.add_argument(
        "--txlog-w4-driver-memory", default="2g", help="txlog's driver heap on W4, W11 and W17"
    )
    parser.add_argument(
        "--timeout", type=int, help="seconds per process (default 3 h; smoke 15 min)"
    )
    parser.add_argument(
        "--w9-seconds", type=int, help="W9: how long the writers commit (default 60; smoke 10)"
    )
    args = parser.parse_args()
    if args.retime and not (args.resume and args.only):
        parser.error("--retime needs --resume and --only (the saved run's jobs to time again)")
    if args.engines is None:
        args.engines = ENGINES + ([BASELINE] if args.baseline else [])
    if BASELINE in args.engines:
        if args.baseline is None or not (args.baseline / "python" / "txlog").is_dir():
            parser.error("txlog-baseline needs --baseline DIR, a txlog checkout")
        os.environ[txlog_py.BASELINE_ENV] = str(args.baseline.resolve())
    args.warm = args.warm if args.warm is not None else (1 if args.smoke else 5)
    args.warmup = args.warmup if args.warmup is not None else (0 if args.smoke else 2)
    args.cold = args.cold if args.cold is not None else (1 if args.smoke else 3)
    args.timeout = args.timeout or (900 if args.smoke else 3 * 3600)
    args.shared_session = args.shared_session or args.smoke
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # runs the workers' clean-up
    started = time.perf_counter()

    log("generating tables")
    scale = jobs.SMOKE if args.smoke else jobs.FULL
    args.w9_seconds = args.w9_seconds or scale.w9_seconds
    selected = jobs.build(dataclasses.replace(scale, w9_seconds=args.w9_seconds), args.only)
    if not selected:
        parser.error(f"no job among {args.only}")
    tables = list({j.table.path: j.table for j in selected}.values())
    results: dict = {
        "mode": "smoke" if args.smoke else "full",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine.describe(),
        "txlog_commit": machine.txlog_commit(BENCH.parent),
        "settings": {k: getattr(args, k) for k in ("warm", "warmup", "cold", "shared_session",
                                                   "driver_memory", "txlog_w4_driver_memory",
                                                   "w9_seconds")},
        "baseline": machine.describe_checkout(args.baseline) if BASELINE in args.engines else None,
        "tables": {str(t.path.relative_to(BENCH)): t.manifest for t in tables},
        "jobs": {j.id: {"task": j.task, "files": j.files, "description": j.description,
                        "table": str(j.table.path.relative_to(BENCH))} for j in selected},
        "verification": {},
        "figures": {},
    }  # fmt: skip
    done: list[str] = []  # engines carried over from an interrupted run (--resume)
    if args.resume:
        try:
            done, kept = resume.begin(OUT / "results.json", results, args.engines,
                                      jobs.ids(scale), args.only if args.retime else [])
        except resume.CannotResume as e:
            parser.error(str(e))
        log(f"resuming the run of {results['date']}: keeping {', '.join(kept) or 'nothing'}")
    runner = Runner(args)

    def keep(engine: str, job_id: str, figure: dict) -> None:  # an interrupted part loses one job
        results["figures"][engine][job_id] = figure
        resume.save(results, time.perf_counter() - started, engine, [job_id])

    runner.kept = keep

    unprepared = {}  # W7 tables txlog could not checkpoint: their jobs are not timed
    for t in tables:
        if "copy_of" in t.manifest:
            log(f"txlog writes a checkpoint of {t.path.relative_to(BENCH)}")
            verdict = runner.checkpoint_with_txlog(t)
            log(f"  {verdict} {t.manifest.get('txlog_checkpoint_s', '')}")
            if verdict != "ok":
                unprepared[str(t.path.relative_to(BENCH))] = verdict
    tables = [t for t in tables if str(t.path.relative_to(BENCH)) not in unprepared]

    for engine in [e for e in PEERS if e in args.engines]:
        runner.verify(engine, tables, results["verification"].setdefault(engine, {}))

    # W16, W18: the tables served through S3 from here on (prepared: W7's checkpoint written).
    prepared = {t.path for t in tables}
    served = sorted({j.table.path for j in selected if j.task in s3_jobs.TASKS} & prepared)
    serving = s3_jobs.serving(served, jobs.S3_DELAY_MS) if served else contextlib.nullcontext()
    with serving:
        for engine in [e for e in args.engines if e not in done]:
            verdicts = results["verification"].get(engine, {})
            figures = results["figures"].setdefault(engine, {})  # --resume: what a part kept
            timed = [j for j in selected if j.id not in figures]
            runnable = []
            for j in timed:
                table = results["jobs"][j.id]["table"]
                verdict = verdicts.get(table, "ok")
                if table in unprepared:
                    why = f"not prepared: {unprepared[table]}"
                    figures[j.id] = {"status": "failed", "error": why}
                elif verdict == "ok":
                    runnable.append(j)
                else:
                    figures[j.id] = {"status": "failed", "error": f"not verified: {verdict}"}
            figures.update(runner.measure(engine, runnable))
            results.setdefault("golden", {}).update({
                j.id: golden_tables.compare(results["figures"], j.id)
                for j in selected
                if j.task.startswith("golden")
            })  # fmt: skip
            resume.save(results, time.perf_counter() - started, engine, [j.id for j in timed])
    if "total_s" not in results:  # --resume of a complete run: nothing was timed or saved
        return log("nothing to time: every engine has a figure for every job")
    where = "bench/out/RESULTS-smoke.md" if args.smoke else "bench/RESULTS.md"
    log(f"done in {results['total_s']} s: bench/out/results.json, {where}")


if __name__ == "__main__":
    main()
