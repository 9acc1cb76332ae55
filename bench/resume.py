"""Resuming an interrupted full run (`bench/run.py --resume`).

A full run takes hours; when its process is killed part-way, bench/out/results.json still holds
every engine that finished, because run.py saves after each engine. Resuming keeps those
engines' figures and verifications and times only the engines that are missing or incomplete,
on the same settings, jobs and tables. The report then says which engines were carried over and
when each part ran, so a reader never mistakes a resumed run for one uninterrupted session.
"""

from __future__ import annotations

import json
from pathlib import Path

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


def carry_over(prior: dict, results: dict, engines: list[str]) -> None:
    """Copies the figures of `engines` and every verification from `prior` into `results`, and
    records the parts of the run for the report."""
    results["verification"] = dict(prior.get("verification", {}))
    for engine in engines:
        results["figures"][engine] = prior["figures"][engine]
    parts = prior.get("parts") or [
        {"started": prior["date"], "seconds": prior["total_s"], "engines": list(prior["figures"])}
    ]
    results["parts"] = [*parts, {"started": results["date"], "engines": []}]
    results["date"] = prior["date"]
    load_now = results["machine"]["load_average_at_start"]
    results["machine"]["load_average_at_start"] = prior["machine"]["load_average_at_start"]
    results["machine"]["load_average_at_resume"] = load_now
    results["prior_s"] = sum(p["seconds"] for p in parts)


def finish_part(results: dict, seconds: float, engine: str | None = None) -> float:
    """Records this part's duration (and an engine it measured) and returns the whole run's."""
    if "parts" not in results:
        return seconds
    part = results["parts"][-1]
    part["seconds"] = round(seconds, 1)
    if engine is not None and engine not in part["engines"]:
        part["engines"].append(engine)
    return results["prior_s"] + seconds
