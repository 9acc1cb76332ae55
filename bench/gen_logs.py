"""Synthetic Delta logs (log only, no data files) for the benchmark workloads, cached.

Two shapes:
  w1 -- N live files in one classic checkpoint at version 1000, then 100 JSON commits of
        100 adds / 50 removes each (W1; W4 is this shape at 5M and 20M files).
  w2 -- a chain of JSON commits of 10 adds each from version 0, no checkpoint (W2, W6).
and w7, a fresh copy of a w2 table that run.py checkpoints with txlog before timing (W7), and
w18, a log of N objects whose last 100 commits follow a checkpoint (W18).

Files carry realistic stats by default (stats of ten data columns in the commits' and the
checkpoint's `stats`, and `stats_parsed` / `partitionValues_parsed` in the checkpoint, as
delta-spark writes them; see stats_columns.py); with `stats="none"` they carry none and the
checkpoint has no parsed columns (the stat-less variants, directories suffixed `-nostats`).

Each table is written once under bench/out/tables/<shape>-<scale>[-nostats]/ and reused. Its
manifest.json holds the expected final state (file count, total size), the W6 time-travel
target and the W5 commit to append: that commit is written at generation time beside the
manifest (append-commit.json), so any runner, in any language, appends it by copying the file
into a copy of the table's _delta_log and setting its modification time to the manifest's
`ts`. Generation is deterministic: the same shape and scale always give byte-identical logs.

    .venv/bin/python bench/gen_logs.py w1 1000000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import checkpoint_file
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import synth

GENERATOR_VERSION = 4  # 4: ten-column stats, stats_parsed, stat-less variants
SEED = 20240101
OUT = Path(__file__).resolve().parent / "out" / "tables"

CHECKPOINT_VERSION = 1000
TAIL_COMMITS = 100
TAIL_ADDS = 100
TAIL_REMOVES = 50
CHAIN_ADDS = 10
BATCH_ROWS = 1 << 19
COMMITS_START_MS = synth.BASE_MS + 86_400_000  # a day after the first file was written
W1_COMMIT_GAP_MS = 60_000
W2_COMMIT_GAP_MS = 1_000
APPEND_COMMIT = "append-commit.json"  # the W5 commit, beside manifest.json


@dataclass(frozen=True)
class Table:
    path: Path
    manifest: dict


def cached_table(name: str, generator: int, make: Callable[[Path], dict]) -> Table:
    """The table cached as `OUT/<name>/table` with its `manifest.json`, made by `make(directory)`
    (which returns the manifest's fields) when absent or of another `generator` version."""
    directory = OUT / name
    manifest_file = directory / "manifest.json"
    if manifest_file.exists():
        manifest = json.loads(manifest_file.read_text())
        if manifest.get("generator") == generator:
            return Table(directory / "table", manifest)
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    started = time.perf_counter()
    manifest = {"generator": generator, **make(directory)}
    manifest["generate_s"] = round(time.perf_counter() - started, 2)
    manifest_file.write_text(json.dumps(manifest, indent=1))
    return Table(directory / "table", manifest)


def written_by_child(script: str, directory: Path, size: int, *extra: str) -> dict:
    """Runs `script --write <directory>/table <size> --out F [extra ...]` (a table written by a
    child process, e.g. with delta-spark) and returns the manifest fields it left in F."""
    import subprocess
    import sys

    out = directory / "generated.json"
    argv = [sys.executable, script, "--write", str(directory / "table"), str(size),
            "--out", str(out), *extra]  # fmt: skip
    subprocess.run(argv, check=True)
    fields = json.loads(out.read_text())
    out.unlink()
    return fields


def _name(shape: str, scale: int, stats: str) -> str:
    """The table's directory name: `w1-1000000`, or `w1-1000000-nostats` without stats."""
    return f"{shape}-{scale}" + {"ten": "", "none": "-nostats"}[stats]


def w1(n_files: int, stats: str = "ten") -> Table:
    """N files in a checkpoint at version 1000 plus a 100-commit tail (W1, W4, W5)."""
    return _cached(OUT / _name("w1", n_files, stats), lambda log: _write_w1(log, n_files, stats))


def w2(n_commits: int, stats: str = "ten") -> Table:
    """A chain of JSON commits of 10 adds each, no checkpoint (W2, W6)."""
    directory = OUT / _name("w2", n_commits, stats)
    return _cached(directory, lambda log: _write_w2(log, n_commits, stats))


def w7(n_commits: int, stats: str = "ten") -> Table:
    """A fresh copy of the w2 table (not cached: made again on every call), without the
    time-travel target. run.py then has txlog write a checkpoint of its latest version."""
    source = w2(n_commits, stats)
    directory = OUT / _name("w7", n_commits, stats)
    shutil.rmtree(directory, ignore_errors=True)
    started = time.perf_counter()
    shutil.copytree(source.path, directory / "table")  # keeps the commits' modification times
    manifest = {k: v for k, v in source.manifest.items() if k != "time_travel"}
    manifest["copy_of"] = source.path.parent.name
    manifest["generate_s"] = round(time.perf_counter() - started, 2)
    write_manifest(directory / "table", manifest)
    return Table(directory / "table", manifest)


def manifest(table_path: Path) -> dict:
    """The manifest of a generated table, given the table's path."""
    return json.loads((Path(table_path).parent / "manifest.json").read_text())


def write_manifest(table_path: Path, manifest: dict) -> None:
    (Path(table_path).parent / "manifest.json").write_text(json.dumps(manifest, indent=1))


def append_commit(source: Path, target: Path, manifest: dict) -> dict:
    """Appends the commit planned for the w1 table at `source` (100 adds, 50 removes of live
    files; the file beside its manifest) to the table at `target` (normally a copy of it):
    copies it to target's `_delta_log/<version>.json` with the manifest's `ts` as modification
    time. Returns the expected new state."""
    plan = manifest["append"]
    commit = target / "_delta_log" / f"{plan['version']:020d}.json"
    shutil.copyfile(Path(source).parent / plan["file"], commit)
    os.utime(commit, (plan["ts"] / 1000, plan["ts"] / 1000))
    return plan["expected"]


def _cached(
    directory: Path, build: Callable[[Path], dict], version: int = GENERATOR_VERSION
) -> Table:
    """The table in `directory` (under OUT), built by `build` (given its new `_delta_log`)
    unless a manifest of generator `version` is there."""

    def make(d: Path) -> dict:
        log = d / "table" / "_delta_log"
        log.mkdir(parents=True)
        return build(log)

    return cached_table(directory.relative_to(OUT).as_posix(), version, make)


def _write_json(file: Path, actions: list[dict], ts_ms: int) -> None:
    file.write_text("".join(json.dumps(a, separators=(",", ":")) + "\n" for a in actions))
    os.utime(file, (ts_ms / 1000, ts_ms / 1000))


def _write_commit(
    file: Path, adds: np.ndarray, removes: np.ndarray, ts_ms: int, stats: str
) -> None:
    actions = [synth.commit_info(ts_ms)]
    actions += synth.add_actions(adds, SEED, stats) + synth.remove_actions(removes, SEED, ts_ms)
    _write_json(file, actions, ts_ms)


def _pick_live(alive: np.ndarray, below: int, count: int, rng: np.random.Generator) -> np.ndarray:
    chosen: dict[int, None] = {}
    while len(chosen) < count:
        i = int(rng.integers(0, below))
        if alive[i]:
            chosen[i] = None
    return np.fromiter(chosen, dtype=np.int64, count=count)


def _size(indices: np.ndarray) -> int:
    return synth.total_size(indices, SEED)


def _checkpoint_schema(stats: str) -> pa.Schema:
    """With stats, the checkpoint has stats_parsed (delta-spark's default); without, not."""
    return checkpoint_file.PARSED_SCHEMA if stats == "ten" else checkpoint_file.SCHEMA


def _checkpoint_batches(n_files: int, sizes: list[int], stats: str) -> Iterator[pa.RecordBatch]:
    schema = _checkpoint_schema(stats)
    yield checkpoint_file.table_state_batch(synth.protocol(), synth.metadata(SEED), schema)
    for start in range(0, n_files, BATCH_ROWS):
        indices = np.arange(start, min(start + BATCH_ROWS, n_files))
        columns = synth.file_columns(indices, SEED, stats)
        sizes.append(pc.sum(columns["size"]).as_py())
        yield checkpoint_file.add_batch(columns, schema)


def _write_w1(log: Path, n_files: int, stats: str) -> dict:
    c = CHECKPOINT_VERSION
    sizes: list[int] = []
    checkpoint = log / f"{c:020d}.checkpoint.parquet"
    batches = _checkpoint_batches(n_files, sizes, stats)
    rows = checkpoint_file.write(checkpoint, batches, _checkpoint_schema(stats))
    os.utime(checkpoint, (COMMITS_START_MS / 1000,) * 2)
    last_checkpoint = {
        "version": c,
        "size": rows,
        "sizeInBytes": checkpoint.stat().st_size,
        "numOfAddFiles": n_files,
    }
    (log / "_last_checkpoint").write_text(json.dumps(last_checkpoint) + "\n")

    alive = np.zeros(n_files + (TAIL_COMMITS + 1) * TAIL_ADDS, dtype=bool)
    alive[:n_files] = True
    state = {"version": c, "num_files": n_files, "size_in_bytes": sum(sizes)}

    def next_commit(version: int) -> tuple[np.ndarray, np.ndarray, int]:
        first_add = n_files + (version - c - 1) * TAIL_ADDS
        adds = np.arange(first_add, first_add + TAIL_ADDS)
        removes = _pick_live(alive, first_add, TAIL_REMOVES, np.random.default_rng([SEED, version]))
        alive[removes], alive[adds] = False, True
        state["version"] = version
        state["num_files"] += TAIL_ADDS - TAIL_REMOVES
        state["size_in_bytes"] += _size(adds) - _size(removes)
        return adds, removes, COMMITS_START_MS + (version - c) * W1_COMMIT_GAP_MS

    for version in range(c + 1, c + TAIL_COMMITS + 1):
        _write_commit(log / f"{version:020d}.json", *next_commit(version), stats)
    final = dict(state)
    adds, removes, ts = next_commit(c + TAIL_COMMITS + 1)  # planned for W5, see append_commit
    _write_commit(log.parent.parent / APPEND_COMMIT, adds, removes, ts, stats)
    append = {"version": state["version"], "file": APPEND_COMMIT, "ts": ts}
    return {**final, "append": {**append, "expected": state}}


def _write_w2(log: Path, n_commits: int, stats: str) -> dict:
    adds = synth.add_actions(np.arange(n_commits * CHAIN_ADDS), SEED, stats)
    for version in range(n_commits):
        ts = COMMITS_START_MS + version * W2_COMMIT_GAP_MS
        head = [synth.commit_info(ts)]
        if version == 0:
            head += [{"protocol": synth.protocol()}, {"metaData": synth.metadata(SEED)}]
        body = adds[version * CHAIN_ADDS : (version + 1) * CHAIN_ADDS]
        _write_json(log / f"{version:020d}.json", head + body, ts)
    middle = n_commits // 2
    # Half a second after the middle commit: resolves to exactly that version.
    at_ms = COMMITS_START_MS + middle * W2_COMMIT_GAP_MS + 500
    middle_files = (middle + 1) * CHAIN_ADDS
    return {
        "version": n_commits - 1,
        "num_files": n_commits * CHAIN_ADDS,
        "size_in_bytes": _size(np.arange(n_commits * CHAIN_ADDS)),
        "time_travel": {
            "timestamp": datetime.fromtimestamp(at_ms / 1000, UTC).isoformat(),
            "version": middle,
            "num_files": middle_files,
            "size_in_bytes": _size(np.arange(middle_files)),
        },
    }


W18_FILES = 10_000  # live files in W18's checkpoint
W18_TAIL = 100  # commits after it, of CHAIN_ADDS adds each


def w18(n_objects: int) -> Table:
    """A log of `n_objects` objects whose last 100 commits follow a checkpoint (W18): commit 0
    adds 10,000 files, commits 1 to the checkpoint's version hold only their commitInfo (a
    writer's empty commits, never cleaned up), the checkpoint holds the 10,000 files, and each of
    the 100 commits after it adds 10. Tables of any `n_objects` (at least 104) have the same
    state at their latest version; only their versions, and the empty commits before the
    checkpoint, differ."""
    if n_objects < 104:
        raise ValueError(f"n_objects: at least 104, not {n_objects}")
    return _cached(OUT / f"w18-{n_objects}", lambda log: _write_w18(log, n_objects))


def _write_w18(log: Path, n_objects: int) -> dict:
    c = n_objects - W18_TAIL - 3  # commits 0..c+100, the checkpoint and _last_checkpoint
    ts0 = COMMITS_START_MS
    head = [synth.commit_info(ts0), {"protocol": synth.protocol()},
            {"metaData": synth.metadata(SEED)}]  # fmt: skip
    _write_json(log / f"{0:020d}.json", head + synth.add_actions(np.arange(W18_FILES), SEED), ts0)
    for version in range(1, c + 1):
        ts = ts0 + version * W2_COMMIT_GAP_MS
        _write_json(log / f"{version:020d}.json", [synth.commit_info(ts)], ts)
    sizes: list[int] = []
    checkpoint = log / f"{c:020d}.checkpoint.parquet"
    rows = checkpoint_file.write(
        checkpoint, _checkpoint_batches(W18_FILES, sizes, "ten"), _checkpoint_schema("ten")
    )
    os.utime(checkpoint, ((ts0 + c * W2_COMMIT_GAP_MS) / 1000,) * 2)
    last = {"version": c, "size": rows, "sizeInBytes": checkpoint.stat().st_size,
            "numOfAddFiles": W18_FILES}  # fmt: skip
    (log / "_last_checkpoint").write_text(json.dumps(last) + "\n")
    for i in range(W18_TAIL):
        version = c + 1 + i
        ts = ts0 + version * W2_COMMIT_GAP_MS
        first = W18_FILES + i * CHAIN_ADDS
        adds = synth.add_actions(np.arange(first, first + CHAIN_ADDS), SEED)
        _write_json(log / f"{version:020d}.json", [synth.commit_info(ts)] + adds, ts)
    files = W18_FILES + W18_TAIL * CHAIN_ADDS
    return {"version": c + W18_TAIL, "num_files": files, "size_in_bytes": _size(np.arange(files)),
            "checkpoint_version": c, "log_objects": n_objects}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("shape", choices=["w1", "w2", "w18"])
    parser.add_argument("scale", type=int,
                        help="w1: live files in the checkpoint; w2: commits; w18: log objects")
    parser.add_argument("--no-stats", action="store_true", help="the stat-less variant")
    args = parser.parse_args()
    stats = "none" if args.no_stats else "ten"
    table = w18(args.scale) if args.shape == "w18" else {"w1": w1, "w2": w2}[args.shape](
        args.scale, stats
    )
    print(table.path, json.dumps({k: v for k, v in table.manifest.items() if k != "append"}))


if __name__ == "__main__":
    main()
