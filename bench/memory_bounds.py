"""On-demand driver-memory check (not part of `make test`): txlog in a JVM with a 1 GiB heap
(local mode, so the driver is that JVM) loads a table whose tail is 2 GiB of JSON commits, and
runs update() after each of 1,000 small commits on a cached snapshot. Both must finish; the
figures (time, JVM heap peak) are written to bench/out/memory-bounds/*.json and printed.

    python3 bench/memory_bounds.py [--tail-gib 2] [--updates 1000] [--heap 1g]

The tables are generated under bench/out/memory-bounds/ (pure Python, no dependencies; the big
one once): commit 0 holds the protocol, the metadata and 100,000 adds and is checkpointed by
txlog (in the same JVM, before the measured runs); the `big` table then has commits of 2,000
adds (with stats) and 20 removes of checkpointed files, about 1 MiB each, up to the tail size
asked for. The `small` table is commit 0 alone, made afresh for each run, and receives the
update commits.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out" / "memory-bounds"
MAIN = "txlog.bench.MemoryBounds"
BASE_FILES = 100_000
ADDS_PER_COMMIT = 2_000
REMOVES_PER_COMMIT = 20
SCHEMA = json.dumps(
    {
        "type": "struct",
        "fields": [
            {"name": "id", "type": "long", "nullable": True, "metadata": {}},
            {"name": "date", "type": "string", "nullable": True, "metadata": {}},
        ],
    },
    separators=(",", ":"),
)


def _name(version: int) -> str:
    return f"{version:020d}.json"


def _add(path: str, i: int) -> str:
    stats = (
        f'{{\\"numRecords\\":{i % 977 + 1},\\"minValues\\":{{\\"id\\":{i}}},'
        f'\\"maxValues\\":{{\\"id\\":{i + 1000}}},\\"nullCount\\":{{\\"id\\":0}}}}'
    )
    return (
        f'{{"add":{{"path":"date=2024-01-{i % 28 + 1:02d}/{path}","partitionValues":'
        f'{{"date":"2024-01-{i % 28 + 1:02d}"}},"size":{1000 + i % 4096},'
        f'"modificationTime":1700000000000,"dataChange":true,"stats":"{stats}",'
        f'"tags":{{"INSERTION_TIME":"1700000000000000","MIN_INSERTION_TIME":"1700000000000000",'
        f'"MAX_INSERTION_TIME":"1700000000000000","OPTIMIZE_TARGET_SIZE":"268435456"}}}}}}\n'
    )


def _remove(path: str, i: int) -> str:
    return (
        f'{{"remove":{{"path":"date=2024-01-{i % 28 + 1:02d}/{path}","deletionTimestamp":'
        f'1700000000000,"dataChange":true,"extendedFileMetadata":true,"partitionValues":'
        f'{{"date":"2024-01-{i % 28 + 1:02d}"}},"size":{1000 + i % 4096}}}}}\n'
    )


def _commit_info(ts: int) -> str:
    return f'{{"commitInfo":{{"timestamp":{ts},"operation":"WRITE","engineInfo":"memory-bounds"}}}}\n'


def _sbt(heap: str, *runs: str) -> None:
    cmd = [str(REPO / "build" / "sbt"), f'set bench/Compile/run/javaOptions += "-Xmx{heap}"']
    cmd += [f"bench/runMain {MAIN} {r}" for r in runs]
    env = {**os.environ, "SBT_JAVA_OPTS": os.environ.get("SBT_JAVA_OPTS", "-Xmx1g")}
    subprocess.run(cmd, cwd=REPO, check=True, stdin=subprocess.DEVNULL, env=env)


def _commit_zero(log: Path) -> None:
    """Commit 0: the protocol, the metadata and BASE_FILES adds."""
    log.mkdir(parents=True, exist_ok=True)
    metadata = {
        "id": "memory-bounds",
        "format": {"provider": "parquet", "options": {}},
        "schemaString": SCHEMA,
        "partitionColumns": ["date"],
        "configuration": {},
        "createdTime": 1700000000000,
    }
    with open(log / _name(0), "w") as f:
        f.write(_commit_info(1700000000000))
        f.write(json.dumps({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}) + "\n")
        f.write(json.dumps({"metaData": metadata}, separators=(",", ":")) + "\n")
        for i in range(BASE_FILES):
            f.write(_add(f"base-{i}.parquet", i))


def big_table(tail_bytes: int) -> Path:
    """Commit 0, then commits of ADDS_PER_COMMIT adds each up to `tail_bytes` of JSON (commit 0
    is checkpointed by the run, so the tail is the commits after it)."""
    table = OUT / f"big-{tail_bytes}" / "table"
    done = table.parent / "done"
    if done.exists():
        return table
    shutil.rmtree(table.parent, ignore_errors=True)
    log = table / "_delta_log"
    _commit_zero(log)
    written, version, removed = 0, 0, 0
    while written < tail_bytes:
        version += 1
        parts = [_commit_info(1700000000000 + version * 1000)]
        for _ in range(REMOVES_PER_COMMIT):
            parts.append(_remove(f"base-{removed}.parquet", removed))
            removed += 1
        first = (version - 1) * ADDS_PER_COMMIT
        parts += [_add(f"tail-{i}.parquet", i) for i in range(first, first + ADDS_PER_COMMIT)]
        text = "".join(parts).encode()
        (log / _name(version)).write_bytes(text)
        written += len(text)
    done.write_text(json.dumps({"commits": version, "tail_bytes": written}))
    return table


def small_table() -> Path:
    """Commit 0 alone, afresh (the update loop appends to it)."""
    table = OUT / "small" / "table"
    shutil.rmtree(table.parent, ignore_errors=True)
    _commit_zero(table / "_delta_log")
    return table


def _checkpoint_run(table: Path) -> list[str]:
    """The run that checkpoints commit 0 of `table`, unless done."""
    if (table / "_delta_log" / f"{0:020d}.checkpoint.parquet").exists():
        return []
    return [f"checkpoint {table} 0 {table.parent / 'checkpoint.json'}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tail-gib", type=float, default=2.0)
    parser.add_argument("--updates", type=int, default=1000)
    parser.add_argument("--heap", default="1g")
    parser.add_argument("--generate-only", action="store_true")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    big = big_table(int(args.tail_gib * (1 << 30)))
    small = small_table()
    print(f"tables ready in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    if args.generate_only:
        return
    load_out, updates_out = OUT / "load.json", OUT / "updates.json"
    _sbt(
        args.heap,
        *_checkpoint_run(big),
        *_checkpoint_run(small),
        f"load {big} {load_out}",
        f"updates {small} {args.updates} {updates_out}",
    )
    tail = json.loads((big.parent / "done").read_text())
    report = {
        "heap": args.heap,
        "tail": tail,
        "load": json.loads(load_out.read_text()),
        "updates": json.loads(updates_out.read_text()),
    }
    (OUT / "report.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))
    failed = [k for k in ("load", "updates") if report[k].get("status") != "ok"]
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
