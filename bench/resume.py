"""Resuming an interrupted full run (`bench/run.py --resume`).

A full run takes hours; when its process is killed part-way, bench/out/results.json still holds
every job that finished, because run.py saves after each job. Resuming keeps those figures
and the verifications and times only the jobs each engine is missing, on the same settings and
tables. A part may also time other jobs than the saved run (`--resume --only ...`): the run then
holds the union of both, each job defined alike wherever both have it. A full run too long for
one sitting is thus timed job by job, every engine of a job in the same part, so that each
ratio compares figures of one sitting (bench/README.md, "A full run in parts"). The report says
which engines and jobs each part timed and when, so a reader never mistakes a resumed run for
one uninterrupted session.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterable
from pathlib import Path

import report

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out"

# What must be identical for two parts to form one run: the method, and each job and table
# both parts hold (SHARED: compared where both have an entry).
SAME = ("mode", "settings")
SHARED = ("jobs", "tables")
# Table manifest fields that time the preparation and may differ between the parts.
TIMINGS = ("generate_s", "txlog_checkpoint_s")


class CannotResume(Exception):
    """The saved run is missing or differs from this one; the message says how."""


def load(path: Path, fresh: dict) -> dict:
    """The saved results of the interrupted run, checked against this run's `fresh` header."""
    if not path.is_file():
        raise CannotResume(f"{path} does not exist: there is no interrupted run to resume")
    try:
        prior = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise CannotResume(f"{path} is not valid JSON ({e}): start a new run") from e
    for key in SAME:
        if _comparable(key, prior.get(key)) != _comparable(key, fresh[key]):
            raise CannotResume(
                f"{path} was measured with other {key} than this run asks for: resume with the "
                "same options, or start a new run"
            )
    for key in SHARED:
        theirs, ours = _comparable(key, prior.get(key) or {}), _comparable(key, fresh[key])
        differ = sorted(k for k in theirs.keys() & ours.keys() if theirs[k] != ours[k])
        if differ:
            raise CannotResume(
                f"{path} was measured with other {key} than this run asks for ({', '.join(differ)}"
                "): resume with the same generated tables and job definitions, or start a new run"
            )
    return prior


def _comparable(key: str, value: object) -> object:
    if key != "tables" or not isinstance(value, dict):
        return value
    return {t: {k: v for k, v in m.items() if k not in TIMINGS} for t, m in value.items()}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """run.py's options for a run in parts: `--resume`, and `--retime` with it."""
    parser.add_argument(
        "--resume", action="store_true",
        help="continue the run saved in bench/out/results.json (same settings): keep every "
        "figure it saved and time the jobs each engine is missing; with --only other jobs, "
        "add them to the run",
    )  # fmt: skip
    parser.add_argument(
        "--retime", action="store_true",
        help="with --resume and --only: time those jobs again for the --engines given (give "
        "every engine of the job), replacing the figures an earlier part saved; the report "
        "says which part re-timed them",
    )  # fmt: skip


def begin(
    path: Path, results: dict, engines: list[str], order: list[str], retime: Iterable[str] = ()
) -> tuple[list[str], list[str]]:
    """Continues the run saved at `path` with this part (`results`, its header): the engines of
    `engines` that have a figure for every job of this part (not timed again), and the engines
    whose figures it carried over (`carry_over`, the jobs in running order `order`). Of the jobs
    `retime` names, the figures of `engines` (and the W15 comparisons) are not carried over, so
    this part times them again; the earlier parts' records still name what they timed."""
    prior, retime = load(path, results), list(retime)
    part_jobs = list(results["jobs"])
    kept = carry_over(prior, results, order)
    for job in retime:
        results["golden"].pop(job, None)
        for engine in engines:
            results["figures"].get(engine, {}).pop(job, None)
    if retime:
        results["parts"][-1]["retimed"] = list(retime)
    finished = complete_engines(results, part_jobs)
    return [e for e in finished if e in engines], kept


def complete_engines(prior: dict, job_ids: list[str]) -> list[str]:
    """Engines of a run (`prior`) that have a figure (measured or failed) for every job."""
    return [e for e, figures in prior["figures"].items() if all(j in figures for j in job_ids)]


def carry_over(prior: dict, results: dict, order: list[str]) -> list[str]:
    """Copies every figure `prior` holds (every job an engine finished, also of an engine the
    interruption stopped part-way: its other jobs are timed next; `--engines` only says which
    engines this part times), every verification and W15 comparison, and the jobs and tables
    this part does not time into `results` (the jobs in `order`, the running order), records
    the parts of the run for the report, and returns the engines it kept figures of."""
    jobs = {**prior.get("jobs", {}), **results["jobs"]}
    results["jobs"] = {j: jobs[j] for j in sorted(jobs, key=lambda j: _rank(order, j))}
    results["tables"] = {**prior.get("tables", {}), **results["tables"]}
    results["golden"] = dict(prior.get("golden", {}))
    results["verification"] = {e: dict(v) for e, v in prior.get("verification", {}).items()}
    kept = [e for e, figures in prior["figures"].items() if figures]
    for engine in kept:
        results["figures"][engine] = dict(prior["figures"][engine])
    parts = prior.get("parts") or [
        {"started": prior["date"], "seconds": prior["total_s"], "engines": list(prior["figures"]),
         "jobs": {e: list(figures) for e, figures in prior["figures"].items()},
         "txlog_commit": prior.get("txlog_commit")}
    ]  # fmt: skip
    this = {"started": results["date"], "engines": [], "txlog_commit": results["txlog_commit"]}
    results["parts"] = [*parts, this]
    results["txlog_commit"] = prior.get("txlog_commit")
    results["date"] = prior["date"]
    load_now = results["machine"]["load_average_at_start"]
    results["machine"]["load_average_at_start"] = prior["machine"]["load_average_at_start"]
    results["machine"]["load_average_at_resume"] = load_now
    results["prior_s"] = sum(p["seconds"] for p in parts)
    return kept


def _rank(order: list[str], job_id: str) -> int:
    return order.index(job_id) if job_id in order else len(order)


def finish_part(
    results: dict, seconds: float, engine: str | None = None, job_ids: Iterable[str] = ()
) -> float:
    """Records this part's duration (and an engine and the jobs it measured) and returns the
    whole run's."""
    if "parts" not in results:
        return seconds
    part = results["parts"][-1]
    part["seconds"] = round(seconds, 1)
    if engine is not None and engine not in part["engines"]:
        part["engines"].append(engine)
    done = part.setdefault("jobs", {}).setdefault(engine, []) if engine is not None else []
    done += [j for j in job_ids if j not in done]
    return results["prior_s"] + seconds


def save(results: dict, seconds: float, engine: str, job_ids: Iterable[str] = ()) -> None:
    """Writes bench/out/results.json and the report, `seconds` into this part, after `engine`'s
    jobs `job_ids` (one job as it finishes, or all the part timed after the last). run.py saves
    after every job, so that an interruption loses one at most."""
    results["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    results["total_s"] = round(finish_part(results, seconds, engine, job_ids), 1)
    (OUT / "results.json").write_text(json.dumps(results, indent=1))
    if results["mode"] == "smoke":  # smoke figures never replace the full run's report
        report.write(results, OUT / "RESULTS-smoke.md", OUT / "time_vs_files-smoke.png")
    else:
        report.write(results, BENCH / "RESULTS.md", BENCH / "time_vs_files.png")
