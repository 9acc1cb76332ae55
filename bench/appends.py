"""Single-file appends (W8 commit latency, W9 contention): the add action every commit stages,
and the check of the commits they left in the log."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import synth

W8_COMMITS = 20
SIZE = 1 << 20  # bytes of every appended file
_COMMIT = re.compile(r"^(\d{20})\.json$")
# The stats of every appended file: the ten-column stats of one synthetic file (with its own
# numRecords: they are not checked against the size).
_STATS = synth.file_columns(np.array([0]), 0)["stats"][0].as_py()


class LogMismatch(Exception):
    pass


def add(name: str) -> dict:
    """The add action of a new file `date=2024-01-01/part=0/<name>.parquet` (as in a commit's
    JSON, without the `add` key): the same entry for every engine."""
    return {
        "path": f"date=2024-01-01/part=0/{name}.parquet",
        "partitionValues": {"date": "2024-01-01", "part": "0"},
        "size": SIZE,
        "modificationTime": synth.BASE_MS,
        "dataChange": True,
        "stats": _STATS,
    }


def after(manifest: dict, commits: int) -> dict:
    """The expected version, file count and size once `commits` appends landed on the table."""
    return {
        "version": manifest["version"] + commits,
        "num_files": manifest["num_files"] + commits,
        "size_in_bytes": manifest["size_in_bytes"] + commits * SIZE,
    }


def _commit_file(table: Path, version: int) -> Path:
    return table / "_delta_log" / f"{version:020d}.json"


def _latest_version(table: Path) -> int:
    names = (_COMMIT.match(p.name) for p in (table / "_delta_log").iterdir())
    return max(int(m.group(1)) for m in names if m)


def _added_paths(table: Path, version: int) -> list[str]:
    file = _commit_file(table, version)
    if not file.exists():
        raise LogMismatch(f"version {version} is missing")
    actions = (json.loads(line) for line in file.read_text().splitlines() if line.strip())
    return [a["add"]["path"] for a in actions if "add" in a]


def check(table: Path, start: int, commits: list[dict]) -> dict[str, int]:
    """Checks the log after `commits` (dicts with the `path` each added and the `version` the
    engine reported, or None) from version `start`: the latest version is start + their number,
    every version up to it exists and adds exactly one file, and those files are the commits'
    paths, each once, at the version reported. Returns each path's version."""
    latest = _latest_version(table)
    if latest != start + len(commits):
        raise LogMismatch(f"latest version {latest}, expected {start} + {len(commits)} commits")
    found = {}
    for version in range(start + 1, latest + 1):
        paths = _added_paths(table, version)
        if len(paths) != 1:
            raise LogMismatch(f"version {version} adds {len(paths)} files, not 1")
        found[paths[0]] = version
    reported = {c["path"]: c["version"] for c in commits}
    if found.keys() != reported.keys():
        raise LogMismatch("the files the new versions add are not the ones reported committed")
    wrong = [p for p, v in reported.items() if v is not None and found[p] != v]
    if wrong:
        raise LogMismatch(f"{wrong[0]} is at version {found[wrong[0]]}, not {reported[wrong[0]]}")
    return found
