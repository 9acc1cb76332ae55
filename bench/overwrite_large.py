"""W11: an overwrite of the W4 table (W1's shape, millions of live files) with a small input:
one commit removing every live file and adding the few the input makes.

Each run works on a fresh copy of the cached W4 table (made before timing: its `_delta_log`
hard-linked file by file, `_last_checkpoint` copied, since a writer may rewrite that one in
place; the W4 tables have no data files). The engine's input is ROWS rows in the table's
schema (`stats_columns.DATA_COLUMNS` and the partition columns), built and materialized
before timing. Afterwards, untimed, the new commit is read line by line (it holds one remove
per live file: gigabytes at 20M files) and checked: a version one past the table's, exactly
the table's number of removes, and adds whose `numRecords` sum to ROWS in PARTS partitions.
No engine loads the table afterwards (a load of the 20M-file W4 table takes minutes, and the
peers fail it).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path

import gen_logs
import numpy as np
import pyarrow as pa
import stats_columns

ROWS = 100_000  # rows the overwrite writes
PARTS = 10  # in one date, parts 0..PARTS-1: a file (or a few) each
DAY = date(2025, 1, 1)


class Mismatch(Exception):
    """The committed version is not the overwrite the job asked for."""


def arrow_input(rows: int = ROWS) -> pa.Table:
    """The input rows in the table's schema (columns in schema order)."""
    i = np.arange(rows, dtype=np.int64)
    ts0 = datetime(2025, 1, 1, tzinfo=timezone.utc).timestamp()
    columns = {
        "id": pa.array(i),
        "customer_id": pa.array((i % 9973).astype(np.int32)),
        "amount": pa.array(i * 0.25),
        "price": pa.array([Decimal(int(x % 100_000)) / 100 for x in i], pa.decimal128(12, 2)),
        "category": pa.array(np.array(stats_columns.CATEGORIES)[i % len(stats_columns.CATEGORIES)]),
        "country": pa.array(np.array(stats_columns.COUNTRIES)[i % len(stats_columns.COUNTRIES)]),
        "event_date": pa.array([DAY] * rows, pa.date32()),
        "event_ts": pa.array(((ts0 + i) * 1_000_000).astype(np.int64), pa.int64()).cast(
            pa.timestamp("us", tz="UTC")
        ),
        "is_refund": pa.array(i % 7 == 0),
        "note": pa.array([None] * rows, pa.string()),
        "date": pa.array([DAY] * rows, pa.date32()),
        "part": pa.array((i % PARTS).astype(np.int32)),
    }
    names = [n for n, _ in stats_columns.schema_fields()]
    assert list(columns) == names, (list(columns), names)
    return pa.table(columns)


def engine_input(engine) -> object:
    """The engine's form of the input: the Arrow table for delta-rs, a cached and counted
    DataFrame (PARTS input partitions) for the Spark engines."""
    table = arrow_input()
    spark = getattr(engine, "spark", None)
    if spark is None:
        return table
    df = spark.createDataFrame(table).repartition(PARTS, "part").cache()
    df.count()
    return df


@contextmanager
def fresh_copy(table: Path):
    """A copy of the cached W4 table for one run: its log's files hard-linked, but
    `_last_checkpoint` copied (a writer may rewrite it in place)."""
    scratch = gen_logs.OUT.parent / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(dir=scratch, prefix="w11-"))
    try:
        log = root / "table" / "_delta_log"
        log.mkdir(parents=True)
        for f in (table / "_delta_log").iterdir():
            if f.is_file():
                if f.name == "_last_checkpoint":
                    shutil.copy2(f, log / f.name)
                else:
                    os.link(f, log / f.name)
        yield root / "table"
    finally:
        shutil.rmtree(root, ignore_errors=True)


def commit_counts(table: Path, version: int) -> tuple[int, int, int, int]:
    """The commit's removes, adds, the adds' numRecords sum and their distinct partitions,
    read line by line (only the add lines are parsed)."""
    removes = adds = records = 0
    partitions = set()
    with open(table / "_delta_log" / f"{version:020d}.json", "rb") as f:
        for line in f:
            if line.startswith(b'{"remove"'):
                removes += 1
            elif line.startswith(b'{"add"'):
                add = json.loads(line)["add"]
                adds += 1
                records += json.loads(add["stats"])["numRecords"]
                partitions.add(tuple(sorted(add["partitionValues"].items())))
            elif b'"remove"' in line[:40]:  # another key order: parse to be sure
                removes += "remove" in json.loads(line)
    return removes, adds, records, len(partitions)


def run(engine, table: Path, manifest: dict, timed) -> dict:
    """One run of W11 on a fresh copy of the W4 table, checked afterwards."""
    version, files = manifest["version"], manifest["num_files"]
    data = engine_input(engine)
    by = [n for n, _, _ in stats_columns.PARTITION_COLUMNS]
    with fresh_copy(table) as copy:
        _, result = timed(engine, lambda: engine.write(str(copy), data, "overwrite", by))
        newer = sorted((copy / "_delta_log").glob("*.json"))[-1].name
        if newer != f"{version + 1:020d}.json":
            raise Mismatch(f"the newest commit is {newer}, not version {version + 1}")
        removes, adds, records, parts = commit_counts(copy, version + 1)
    if (removes, records, parts) != (files, ROWS, PARTS):
        raise Mismatch(f"version {version + 1} removes {removes} files (want {files}) and adds "
                       f"{adds} files of {records} rows in {parts} partitions (want {ROWS} rows "
                       f"in {PARTS})")  # fmt: skip
    result.update(files_removed=removes, files_added=adds)
    return result
