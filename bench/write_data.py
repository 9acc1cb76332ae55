"""W10: writing rows to a partitioned table, as append and as overwrite, the same rows for
every engine.

The rows with ids [start, end) have ten data columns of mixed types and two partition columns,
each a function of the id (COLUMNS, Spark SQL; `arrow_table` builds the same values with numpy
and pyarrow for delta-rs):

    id long, customer_id int, amount double, price decimal(12,2), category string,
    country string, event_date date, event_ts timestamp, is_refund boolean, note string
    (null for a quarter of the rows), date date (10 values), part int (2 values)

so 20 partitions. The timed rows are ids [0, N) in SLICES input partitions (`spark.range` in 10
slices; 10 record batches for delta-rs), each slice holding all 20 partition values: a Spark
engine writes about SLICES x 20 = 200 files. The Spark engines cache the DataFrame and count it
before timing, delta-rs builds its pyarrow table before timing: the time is the write alone.

Each run writes to a fresh table directory under bench/out/scratch/, removed afterwards:
- `append` (W10-append): the table is first created, untimed, by the same engine with the
  EXTRA_ROWS rows [N, N + EXTRA_ROWS) in one slice; then the N rows are appended (timed);
- `overwrite` (W10-overwrite): the table is first written, untimed, with the N rows; then
  overwritten with them (timed).
Then, untimed, the engine loads the table (version 1 expected) and reads every row back with
its own reader; AGGREGATE over them must be the manifest's answer (computed with numpy from
the ids alone), so every engine wrote the same rows.

The manifest (bench/out/tables/w10-<N>/manifest.json) holds the answers; there is no input
table: the "table" path of the jobs is a placeholder beside it.

    .venv/bin/python bench/write_data.py 200000      # the smoke manifest, with its answers
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import gen_logs
import numpy as np
from engines.base import Counts

GENERATOR_VERSION = 1
SLICES = 10  # input partitions of the timed rows
EXTRA_ROWS = 1_000  # W10-append: the rows the table is created with, untimed
PARTITION_BY = ["date", "part"]
PARTS = 2  # values of `part`
PARTITIONS = 10 * PARTS  # 10 dates x 2 parts
EPOCH_DAY = (date(2024, 1, 1) - date(1970, 1, 1)).days
TS_BASE_US = 1_704_067_200_000_000  # 2024-01-01T00:00:00Z
TS_STEP_US = 1_000_003
COUNTRIES = ["US", "DE", "FR", "GB", "JP", "CN", "IN", "BR", "CA", "AU", "IT", "ES", "MX", "KR",
             "NL", "SE", "CH", "PL", "BE", "AT", "NO", "DK", "FI"]  # fmt: skip
_DATA_COLUMNS = [  # COLUMNS but `part`
    "id",
    "cast(id % 100003 as int) as customer_id",
    "cast(id % 10007 as double) * 0.25 as amount",
    "cast((id % 1000000) / 100.0 as decimal(12,2)) as price",
    "concat('cat-', cast(id % 50 as string)) as category",
    "element_at(array(" + ", ".join(f"'{c}'" for c in COUNTRIES) + "), "
    f"cast(id % {len(COUNTRIES)} as int) + 1) as country",
    "date_add(DATE'2024-01-01', cast(id % 366 as int)) as event_date",
    f"timestamp_micros({TS_BASE_US} + id * {TS_STEP_US}) as event_ts",
    "id % 17 = 0 as is_refund",
    "CASE WHEN id % 4 = 0 THEN NULL ELSE concat('note ', cast(id % 1000 as string)) END as note",
    "date_add(DATE'2024-01-01', cast(id % 10 as int)) as date",
]


def columns(parts: int = PARTS) -> list[str]:
    """The rows' columns as Spark SQL over `id`, `part` taking `parts` values (W19: 10)."""
    return [*_DATA_COLUMNS, f"cast((id div 10) % {parts} as int) as part"]


COLUMNS = columns()

#: What the read-back computes, one select list for Spark SQL and delta-rs's DataFusion.
AGGREGATE = [
    "count(*) AS rows", "sum(id) AS sum_id", "sum(customer_id) AS sum_customer_id",
    "sum(amount) AS sum_amount", "sum(price) AS sum_price",
    "sum(length(category)) AS len_category", "sum(length(country)) AS len_country",
    "min(event_date) AS min_event_date", "max(event_date) AS max_event_date",
    "max(event_ts) AS max_event_ts", "sum(CASE WHEN is_refund THEN 1 ELSE 0 END) AS refunds",
    "count(note) AS notes", "sum(length(note)) AS len_note", "max(date) AS max_date",
    "sum(part) AS sum_part",
]  # fmt: skip


class Mismatch(Exception):
    """The table a write left is not what the manifest says."""


def w10(rows: int) -> gen_logs.Table:
    """The manifest of W10 at `rows` rows (its answers computed once, cached)."""
    return gen_logs.cached_table(f"w10-{rows}", GENERATOR_VERSION, lambda _: {
        "rows": rows, "extra_rows": EXTRA_ROWS,
        "slices": SLICES, "partition_by": PARTITION_BY, "partitions": PARTITIONS,
        "version": None, "num_files": SLICES * PARTITIONS, "size_in_bytes": None,
        "aggregate": AGGREGATE,
        "write": {"append": {"version": 1, "answer": expected(rows + EXTRA_ROWS)},
                  "overwrite": {"version": 1, "answer": expected(rows)}},
    })  # fmt: skip

def _lengths(prefix: str, count: int) -> np.ndarray:
    return np.array([len(f"{prefix}{i}") for i in range(count)], dtype=np.int64)


def expected(end: int, parts: int = PARTS) -> dict:
    """AGGREGATE over the rows with ids [0, end) (`part` taking `parts` values), in answer()'s
    form."""
    ids = np.arange(end, dtype=np.int64)
    has_note = ids % 4 != 0
    last_ts = datetime.fromtimestamp(0, UTC) + timedelta(
        microseconds=TS_BASE_US + (end - 1) * TS_STEP_US
    )
    first = date(2024, 1, 1)
    return {
        "rows": end,
        "sum_id": end * (end - 1) // 2,
        "sum_customer_id": int((ids % 100003).sum()),
        "sum_amount": float(((ids % 10007) * 0.25).sum()),  # multiples of 1/4: exact
        "sum_price": str(Decimal(int((ids % 1_000_000).sum())).scaleb(-2)),
        "len_category": int(_lengths("cat-", 50)[ids % 50].sum()),
        "len_country": int(np.array([len(c) for c in COUNTRIES])[ids % len(COUNTRIES)].sum()),
        "min_event_date": first.isoformat(),
        "max_event_date": (first + timedelta(days=int((ids % 366).max()))).isoformat(),
        "max_event_ts": last_ts.isoformat(),
        "refunds": int((ids % 17 == 0).sum()),
        "notes": int(has_note.sum()),
        "len_note": int(_lengths("note ", 1000)[ids[has_note] % 1000].sum()),
        "max_date": (first + timedelta(days=int((ids % 10).max()))).isoformat(),
        "sum_part": int(((ids // 10) % parts).sum()),
    }


def answer(row: dict) -> dict:
    """A read-back's AGGREGATE in the manifest's form: decimals as text, dates and timestamps
    as ISO text (timestamps in UTC; Spark returns them naive, in local time)."""
    out = {}
    for k, v in row.items():
        if isinstance(v, datetime):
            v = v.astimezone(UTC).isoformat()
        elif isinstance(v, date):
            v = v.isoformat()
        elif isinstance(v, Decimal):
            v = str(v)
        out[k] = v
    return out


def spark_frame(spark, start: int, end: int, slices: int):
    """The rows [start, end) as a cached, materialized DataFrame in `slices` partitions."""
    df = spark.range(start, end, 1, slices).selectExpr(*COLUMNS).cache()
    df.count()
    return df


def arrow_table(start: int, end: int, slices: int):
    """The rows [start, end) as a pyarrow table of `slices` record batches, the values of
    COLUMNS."""
    import pyarrow as pa

    bounds = np.linspace(start, end, slices + 1, dtype=np.int64)
    batches = [_batch(np.arange(lo, hi, dtype=np.int64)) for lo, hi in zip(bounds, bounds[1:])]
    return pa.Table.from_batches(batches)


def _batch(ids: np.ndarray):
    import pyarrow as pa

    n = len(ids)
    unscaled = np.column_stack([ids % 1_000_000, np.zeros(n, dtype=np.int64)]).ravel()
    price = pa.Array.from_buffers(pa.decimal128(12, 2), n, [None, pa.py_buffer(unscaled)])
    notes = pa.array([f"note {i}" for i in range(1000)])
    note_index = pa.array(ids % 1000, mask=ids % 4 == 0)
    return pa.RecordBatch.from_pydict({
        "id": pa.array(ids),
        "customer_id": pa.array((ids % 100003).astype(np.int32)),
        "amount": pa.array((ids % 10007).astype(np.float64) * 0.25),
        "price": price,
        "category": pa.array([f"cat-{i}" for i in range(50)]).take(pa.array(ids % 50)),
        "country": pa.array(COUNTRIES).take(pa.array(ids % len(COUNTRIES))),
        "event_date": pa.array((EPOCH_DAY + ids % 366).astype(np.int32), pa.date32()),
        "event_ts": pa.array(TS_BASE_US + ids * TS_STEP_US, pa.timestamp("us", tz="UTC")),
        "is_refund": pa.array(ids % 17 == 0),
        "note": notes.take(note_index),
        "date": pa.array((EPOCH_DAY + ids % 10).astype(np.int32), pa.date32()),
        "part": pa.array(((ids // 10) % PARTS).astype(np.int32)),
    })  # fmt: skip


@contextmanager
def fresh_table():
    """A path for a new table under bench/out/scratch/, removed afterwards."""
    scratch = gen_logs.OUT.parent / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(dir=scratch, prefix="w10-"))
    try:
        yield root / "table"
    finally:
        shutil.rmtree(root, ignore_errors=True)


_INPUTS: dict[tuple[int, int, int], object] = {}  # the engine's input rows, built once


def _input(engine, start: int, end: int, slices: int):
    key = (start, end, slices)
    if key not in _INPUTS:
        _INPUTS[key] = engine.write_input(start, end, slices)
    return _INPUTS[key]


def run(engine, placeholder: Path, manifest: dict, timed: Callable, mode: str) -> dict:
    """One run of W10-append or W10-overwrite (`mode`) on a fresh table, checked afterwards.
    The run's `files_written` and `bytes_written` are the live files the timed write added."""
    want, rows, by = manifest["write"][mode], manifest["rows"], manifest["partition_by"]
    data = _input(engine, 0, rows, manifest["slices"])
    first = _input(engine, rows, rows + manifest["extra_rows"], 1) if mode == "append" else data
    with fresh_table() as table:
        path = str(table)
        engine.write(path, first, "append", by)  # untimed: creates the table
        before = engine.load(path) if mode == "append" else Counts(0, 0, 0)
        _, result = timed(engine, lambda: engine.write(path, data, mode, by))
        after = engine.load(path)
        got = answer(engine.read_rows(path, manifest["aggregate"]))
    if after.version != want["version"]:
        raise Mismatch(f"{mode}: the table is at version {after.version}, not {want['version']}")
    wrong = {k: (v, want["answer"].get(k)) for k, v in got.items() if v != want["answer"].get(k)}
    if wrong or got.keys() != want["answer"].keys():
        raise Mismatch(f"{mode}: read back (got, expected) {wrong or got}")
    result["files_written"] = after.num_files - before.num_files
    result["bytes_written"] = after.size_in_bytes - before.size_in_bytes
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rows", type=int)
    table = w10(parser.parse_args().rows)
    print(table.path.parent / "manifest.json", json.dumps(table.manifest["write"]))


if __name__ == "__main__":
    main()
