"""W23: a stream draining a table of many one-file commits, the same table for every engine.

`w23(commits)` returns the table cached under bench/out/tables/w23-<commits>/, generating it
first unless a manifest of GENERATOR_VERSION is there: `commits` commits (versions 0 to
commits - 1), each adding one parquet file of ROWS_PER_FILE rows (`id` BIGINT from
commit x ROWS_PER_FILE, `v` STRING), written here with pyarrow and the commits' JSON by hand (a
writer making 10,000 commits would take most of an hour); version 0 also holds the protocol
(1, 2) and the metadata. Files and commits are dated a second apart from 2024-01-01.

Each run (`run`) drains the table as a stream from version 0 (`startingVersion` 0, the
default `maxFilesPerTrigger` of 1000: 10 micro-batches at full scale) with
Trigger.AvailableNow into Spark's `noop` sink, with a fresh checkpoint directory: timed from
the query's start to its end (the engine's source reading the log, each batch's files read).
Untimed: the rows the query's progress reports equal the table's.

    .venv/bin/python bench/stream_table.py 300      # generate (or reuse) the smoke table
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import uuid
from pathlib import Path

import gen_logs

GENERATOR_VERSION = 1
ROWS_PER_FILE = 10
BASE_MS = 1_704_067_200_000  # 2024-01-01T00:00:00Z
SCHEMA = {
    "type": "struct",
    "fields": [
        {"name": "id", "type": "long", "nullable": True, "metadata": {}},
        {"name": "v", "type": "string", "nullable": True, "metadata": {}},
    ],
}


class Mismatch(Exception):
    """A stream read other rows than the table has."""


def _generate(directory: Path, commits: int) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = directory / "table"
    log = table / "_delta_log"
    log.mkdir(parents=True)
    size = 0
    for c in range(commits):
        name = f"part-{c:05d}-{uuid.UUID(int=c)}.parquet"
        first = c * ROWS_PER_FILE
        rows = pa.table({
            "id": pa.array(range(first, first + ROWS_PER_FILE), pa.int64()),
            "v": pa.array([f"r{c}"] * ROWS_PER_FILE),
        })  # fmt: skip
        pq.write_table(rows, table / name)
        ts = BASE_MS + c * 1000
        os.utime(table / name, (ts / 1000, ts / 1000))
        file_size = (table / name).stat().st_size
        size += file_size
        stats = {"numRecords": ROWS_PER_FILE, "minValues": {"id": first},
                 "maxValues": {"id": first + ROWS_PER_FILE - 1}, "nullCount": {"id": 0, "v": 0}}
        actions = []
        if c == 0:
            actions.append({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}})
            actions.append({"metaData": {
                "id": "w23-stream-table", "format": {"provider": "parquet", "options": {}},
                "schemaString": json.dumps(SCHEMA), "partitionColumns": [], "configuration": {},
                "createdTime": BASE_MS}})  # fmt: skip
        actions.append({"add": {"path": name, "partitionValues": {}, "size": file_size,
                                "modificationTime": ts, "dataChange": True,
                                "stats": json.dumps(stats)}})  # fmt: skip
        actions.append({"commitInfo": {"timestamp": ts, "operation": "WRITE",
                                       "operationParameters": {"mode": "Append"}}})
        commit = log / f"{c:020d}.json"
        commit.write_text("".join(json.dumps(a) + "\n" for a in actions))
        os.utime(commit, (ts / 1000, ts / 1000))
    return {"version": commits - 1, "num_files": commits, "size_in_bytes": size,
            "rows": commits * ROWS_PER_FILE}  # fmt: skip


def w23(commits: int) -> gen_logs.Table:
    """The cached W23 table of `commits` one-file commits."""
    return gen_logs.cached_table(
        f"w23-{commits}", GENERATOR_VERSION, lambda directory: _generate(directory, commits)
    )


def run(engine, table: Path, manifest: dict, timed) -> dict:
    """One timed drain of the table by `engine` (engine.stream_drain), its rows checked."""
    checkpoint = Path(tempfile.mkdtemp(prefix="w23-checkpoint-"))
    try:
        rows, result = timed(engine, lambda: engine.stream_drain(str(table), str(checkpoint)))
    finally:
        shutil.rmtree(checkpoint, ignore_errors=True)
    if rows != manifest["rows"]:
        raise Mismatch(f"the stream read {rows} rows; the table has {manifest['rows']}")
    result["rows"] = rows
    return result


if __name__ == "__main__":
    print(w23(int(sys.argv[1])).path)
