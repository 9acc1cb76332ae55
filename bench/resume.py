"""Resuming an interrupted full run (`bench/run.py --resume`).

A full run takes hours; when its process is killed part-way, bench/out/results.json still holds
every job that finished, because run.py saves after each job. Resuming keeps those figures
and the verifications and times only the jobs each engine is missing, on the same settings,
jobs and tables. The report then says which engines were carried over and
when each part ran, so a reader never mistakes a resumed run for one uninterrupted session.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import report

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out"

# What must be identical for two parts to form one run: the method and what was timed.
SAME = ("mode", "settings", "jobs", "tables")
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
                "same options (and the same generated tables), or start a new run"
            )
    return prior


def _comparable(key: str, value: object) -> object:
    if key != "tables" or not isinstance(value, dict):
        return value
    return {t: {k: v for k, v in m.items() if k not in TIMINGS} for t, m in value.items()}


def complete_engines(prior: dict, job_ids: list[str]) -> list[str]:
    """Engines of `prior` that have a figure (measured or failed) for every job."""
    return [e for e, figures in prior["figures"].items() if all(j in figures for j in job_ids)]


def carry_over(prior: dict, results: dict) -> list[str]:
    """Copies every figure `prior` holds (every job an engine finished, also of an engine the
    interruption stopped part-way: its other jobs are timed next; `--engines` only says which
    engines this part times) and every verification into `results`, records the parts of the
    run for the report, and returns the engines it kept figures of."""
    results["verification"] = dict(prior.get("verification", {}))
    kept = [e for e, figures in prior["figures"].items() if figures]
    for engine in kept:
        results["figures"][engine] = dict(prior["figures"][engine])
    parts = prior.get("parts") or [
        {"started": prior["date"], "seconds": prior["total_s"], "engines": list(prior["figures"]),
         "jobs": {e: list(figures) for e, figures in prior["figures"].items()}}
    ]  # fmt: skip
    results["parts"] = [*parts, {"started": results["date"], "engines": []}]
    results["date"] = prior["date"]
    load_now = results["machine"]["load_average_at_start"]
    results["machine"]["load_average_at_start"] = prior["machine"]["load_average_at_start"]
    results["machine"]["load_average_at_resume"] = load_now
    results["prior_s"] = sum(p["seconds"] for p in parts)
    return kept


def finish_part(
    results: dict, seconds: float, engine: str | None = None, job_id: str | None = None
) -> float:
    """Records this part's duration (and an engine and job it measured) and returns the whole
    run's."""
    if "parts" not in results:
        return seconds
    part = results["parts"][-1]
    part["seconds"] = round(seconds, 1)
    if engine is not None and engine not in part["engines"]:
        part["engines"].append(engine)
    if job_id is not None:
        part.setdefault("jobs", {}).setdefault(engine, []).append(job_id)
    return results["prior_s"] + seconds


def save(results: dict, seconds: float, engine: str, job_id: str | None = None) -> None:
    """Writes bench/out/results.json and the report, `seconds` into this part, after `engine`'s
    job `job_id` (None: after all its jobs). run.py saves after every job, so that an
    interruption loses one at most."""
    results["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    results["total_s"] = round(finish_part(results, seconds, engine, job_id), 1)
    (OUT / "results.json").write_text(json.dumps(results, indent=1))
    if results["mode"] == "smoke":  # smoke figures never replace the full run's report
        report.write(results, OUT / "RESULTS-smoke.md", OUT / "time_vs_files-smoke.png")
    else:
        report.write(results, BENCH / "RESULTS.md", BENCH / "time_vs_files.png")
