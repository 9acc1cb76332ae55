"""W14's table: real (tiny) data files on disk, a quarter of them unreferenced, for VACUUM.

Of N files (200k at full scale), all under partition directories `date=2024-01-DD/part=P`:
  - 85% are added by a classic checkpoint at version 100, 10% by 20 JSON commits after it
    (versions 101-120, N/200 adds each);
  - 20% of N, checkpointed files, are removed by those commits (N/100 each), with the commit's
    timestamp (in 2024, long past the 7-day retention) as deletionTimestamp;
  - 5% of N are orphans: written to disk, never named in the log.
So 75% are live and 25% (50k at full scale) are what VACUUM deletes. Every partition directory
keeps live files, so no directory becomes empty. Files hold `size` bytes (200-499; not parquet:
vacuum only lists them), the size their add action says, and their modification time is their
add's `modificationTime` (January 2024). Paths, partition values and stats are synth.py's.
Its stats are synth.py's "legacy" two-column ones and its schema the legacy one (unchanged).

The table is generated once under bench/out/tables/w14-<N>/ (deterministic) and never vacuumed
itself: `fresh_copy` gives each run a copy whose data files are hard links (unlinking one leaves
the cached table's file in place) and whose `_delta_log` is a real copy (an engine rewriting a
log file must not write through to the cache). The manifest's `vacuum` entry holds what VACUUM
must find (count, size, SHA-256 of the sorted relative paths) and what must remain.

    .venv/bin/python bench/vacuum_table.py 200000
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote, urlparse

import checkpoint_file
import gen_logs
import numpy as np
import pyarrow as pa
import synth

GENERATOR_VERSION = 1
SEED = gen_logs.SEED + 14
CHECKPOINT_VERSION = 100
COMMITS = 20
RETENTION_HOURS = 168  # the default deletedFileRetentionDuration: no override needed
COMMIT_GAP_MS = 60_000
EXPECTED = "vacuum-expected.txt"  # the paths VACUUM deletes, beside manifest.json


def w14(n_files: int) -> gen_logs.Table:
    """The cached table of `n_files` data files (a multiple of 200)."""
    return gen_logs._cached(gen_logs.OUT / f"w14-{n_files}", lambda log: _write(log, n_files),
                            GENERATOR_VERSION)  # fmt: skip


def digest(paths: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(sorted(paths)).encode()).hexdigest()


def relative(table: Path, path: str) -> str:
    """A path an engine reported (absolute, a file: URI, or relative) relative to the table."""
    p = unquote(urlparse(path).path) if path.startswith("file:") else path
    return os.path.relpath(p, table) if os.path.isabs(p) else p


def data_files(table: Path) -> Iterator[str]:
    """The table's files outside hidden directories (`_delta_log`), relative to it."""
    for top, dirs, files in os.walk(table):
        dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
        rel = os.path.relpath(top, table)
        visible = (f for f in files if not f.startswith(("_", ".")))
        yield from (f if rel == "." else f"{rel}/{f}" for f in visible)


@contextmanager
def fresh_copy(table: Path):
    """A copy of the cached table for one run (made before timing): data files hard-linked,
    `_delta_log` copied with its modification times."""
    gen_logs.OUT.parent.joinpath("scratch").mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(dir=gen_logs.OUT.parent / "scratch"))
    try:
        copy = root / "table"
        subprocess.run(["cp", "-al", str(table), str(copy)], check=True)
        shutil.rmtree(copy / "_delta_log")
        shutil.copytree(table / "_delta_log", copy / "_delta_log")
        yield copy
    finally:
        shutil.rmtree(root, ignore_errors=True)


class Mismatch(Exception):
    """What a vacuum found or left is not what the table's manifest says."""


def check_found(table: Path, found: list[str], expected: dict) -> None:
    """What a vacuum reported (paths relative to `table`) is exactly the manifest's set."""
    if len(found) != expected["num_files"] or digest(found) != expected["digest"]:
        want = set((table.parent.parent / EXPECTED).read_text().split("\n"))
        got = set(found)
        raise Mismatch(f"found {len(got)} paths, expected {len(want)}: {len(got - want)} "
                       f"unexpected (e.g. {sorted(got - want)[:2]}), {len(want - got)} missed "
                       f"(e.g. {sorted(want - got)[:2]})")  # fmt: skip


def check_remaining(copy: Path, expected: dict) -> None:
    """After a real vacuum: the copy's data files are exactly the live ones."""
    left = list(data_files(copy))
    if len(left) != expected["remaining"] or digest(left) != expected["remaining_digest"]:
        raise Mismatch(f"{len(left)} data files remain, expected {expected['remaining']} "
                       "(or not the live ones)")  # fmt: skip


def _columns(indices: np.ndarray) -> dict[str, pa.Array]:
    """synth's add columns, with small sizes (200-499 bytes) that the files on disk have."""
    cols = synth.file_columns(indices, SEED, "legacy")
    cols["size"] = pa.array(200 + (indices * 7919 + 13) % 300, pa.int64())
    return cols


def _actions(cols: dict[str, pa.Array], ts_ms: int | None = None) -> list[dict]:
    """Add actions of the files, or remove actions deleted at `ts_ms`."""
    keys = ["path", "partitionValues", "size"]
    keys += ["modificationTime", "dataChange", "stats"] if ts_ms is None else []
    lists = {k: cols[k].to_pylist() for k in keys}
    rows = [dict(zip(keys, values, strict=True)) for values in zip(*lists.values(), strict=True)]
    for r in rows:
        r["partitionValues"] = dict(r["partitionValues"])
    if ts_ms is None:
        return [{"add": r} for r in rows]
    return [{"remove": {**r, "deletionTimestamp": ts_ms, "dataChange": True,
                        "extendedFileMetadata": True}} for r in rows]  # fmt: skip


def _write_files(table: Path, cols: dict[str, pa.Array]) -> None:
    block = bytes(range(256)) * 2
    attributes = (cols[k].to_pylist() for k in ("path", "size", "modificationTime"))
    for path, size, mtime in zip(*attributes, strict=True):
        file = table / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(block[:size])
        os.utime(file, ns=(mtime * 1_000_000, mtime * 1_000_000))


def _write(log: Path, n: int) -> dict:
    table = log.parent
    n_checkpoint, n_new, n_removed = n * 85 // 100, n * 10 // 100, n * 20 // 100
    n_live = n_checkpoint + n_new - n_removed
    rng = np.random.default_rng(SEED)
    removed = rng.permutation(n_checkpoint)[:n_removed].reshape(COMMITS, -1)
    new = np.arange(n_checkpoint, n_checkpoint + n_new).reshape(COMMITS, -1)
    orphans = np.arange(n_checkpoint + n_new, n)
    everything = _columns(np.arange(n))
    _write_files(table, everything)

    c = CHECKPOINT_VERSION
    checkpoint = log / f"{c:020d}.checkpoint.parquet"
    head = checkpoint_file.table_state_batch(synth.protocol(), synth.metadata(SEED, legacy=True))
    adds = checkpoint_file.add_batch(_columns(np.arange(n_checkpoint)))
    rows = checkpoint_file.write(checkpoint, [head, adds])
    os.utime(checkpoint, (gen_logs.COMMITS_START_MS / 1000,) * 2)
    last = {"version": c, "size": rows, "sizeInBytes": checkpoint.stat().st_size}
    (log / "_last_checkpoint").write_text(json.dumps({**last, "numOfAddFiles": n_checkpoint}))
    for i in range(COMMITS):
        ts = gen_logs.COMMITS_START_MS + (i + 1) * COMMIT_GAP_MS
        actions = [synth.commit_info(ts), *_actions(_columns(new[i]))]
        actions += _actions(_columns(removed[i]), ts)
        gen_logs._write_json(log / f"{c + i + 1:020d}.json", actions, ts)

    paths, sizes = everything["path"].to_pylist(), everything["size"].to_pylist()
    gone = [*removed.ravel().tolist(), *orphans.tolist()]
    live = sorted(set(range(n)) - set(gone))
    (table.parent / EXPECTED).write_text("\n".join(sorted(paths[i] for i in gone)))
    return {
        "version": c + COMMITS,
        "num_files": n_live,
        "size_in_bytes": sum(sizes[i] for i in live),
        "vacuum": {
            "retention_hours": RETENTION_HOURS,
            "num_files": len(gone),
            "removed": n_removed,
            "orphans": len(orphans),
            "size_in_bytes": sum(sizes[i] for i in gone),
            "digest": digest(paths[i] for i in gone),
            "remaining": len(live),
            "remaining_digest": digest(paths[i] for i in live),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", type=int, help="data files on disk (a multiple of 200)")
    table = w14(parser.parse_args().files)
    print(table.path, json.dumps(table.manifest))


if __name__ == "__main__":
    main()
