"""W20-W22: row-level DML (DELETE, MERGE upsert, UPDATE) of one table, the same for every engine.

`w20(rows, deletion_vectors)` returns the table cached under bench/out/tables/w20-<rows>/ (with
deletion vectors: W20, W21, W22) or w20-<rows>-cow/ (without: the copy-on-write variants
W20-cow, W21-cow, W22-cow), generating it first (in a child process with a delta-spark session,
`python bench/dml_table.py --write ...`) unless a manifest of GENERATOR_VERSION is there. The
table: `rows` rows in files_for(rows) data files (`spark.range(0, rows, 1, files)`, one parquet
file per slice: 200 files of 50k rows at full scale, 20 of 10k at smoke scale), unpartitioned,
five columns derived from `id` as W13's (dv_table.COLUMNS: `id long, k int, v double,
s string, d date`), in one commit (version 0), with `delta.enableDeletionVectors` true or false
(session default `spark.databricks.delta.properties.defaults.enableDeletionVectors`).

The operations (`run`), each on a fresh copy made before the clock starts
(vacuum_table.fresh_copy: data files hard-linked, `_delta_log` copied), timed from the table's
path with the engine's own API until it returns:
- `delete` (W20): DELETE WHERE DELETE_WHERE, 0.1% of the rows, spread over every file;
- `update` (W22): UPDATE SET UPDATE_SET WHERE UPDATE_WHERE, 1% of the rows, in every file;
- `merge` (W21): MERGE of rows x MERGE_FRACTION source rows (100k at full scale, 2,000 at
  smoke scale) ON MERGE_ON, WHEN MATCHED UPDATE SET * WHEN NOT MATCHED INSERT *: half the
  source matches existing ids (every `stride`-th id from 0, in every file), half are new ids
  (rows, rows + 1, ...); the source's columns are other functions of the id (SOURCE_COLUMNS).
  The source is built before the clock starts: a cached and counted DataFrame for the Spark
  engines (`spark_source`), a pyarrow table for delta-rs (`arrow_source`).

Untimed, afterwards: the copy has exactly one new version (its newest commit is version + 1 and
the engine loads it at that version); the engine's own reader's AGGREGATE over every row equals
the manifest's answer for the operation, computed with numpy from the ids alone (`expected`);
the cached table has no new version. The commit's removes, adds, adds carrying a deletion
vector and its operation are recorded: what each engine did (deletion vectors or rewritten
files). The manifest holds the version, files and size (for the verification and the engines'
`load`), the rows, whether deletion vectors are enabled, AGGREGATE and the answers; the answer
of the table as written is checked against delta-spark's read when it is generated.

    .venv/bin/python bench/dml_table.py 200000          # generate (or reuse) the smoke table
    .venv/bin/python bench/dml_table.py 200000 --cow    # its copy-on-write variant
"""

from __future__ import annotations

import argparse
import json
from datetime import date, timedelta
from pathlib import Path

import dv_table
import gen_logs
import numpy as np
import vacuum_table

GENERATOR_VERSION = 1
FILES = {10_000_000: 200}  # rows -> data files; smaller tables: 20 files
COLUMNS = dv_table.COLUMNS  # id long, k int, v double, s string, d date
DELETE_WHERE = "id % 1000 = 7"  # W20: 0.1% of the rows
UPDATE_WHERE = "id % 100 = 3"  # W22: 1% of the rows
UPDATE_SET = {"v": "v + 1", "s": "'u'"}
MERGE_FRACTION = 0.01  # W21: source rows per table row (100k of 10M), half of them matched
TARGET, SOURCE = "target", "s"  # W21: the aliases MERGE_ON names
MERGE_ON = f"{TARGET}.id = {SOURCE}.id"
SOURCE_SLICES = 4  # input partitions of the Spark engines' MERGE source
#: The MERGE source's columns over its ids, in the table's schema (other values than COLUMNS').
SOURCE_COLUMNS = [
    "id",
    "cast(id % 1000 as int) + 1000 as k",
    "cast(id as double) * 0.25 as v",
    "concat('m-', cast(id % 97 as string)) as s",
    "date_add(DATE'2025-01-01', cast(id % 31 as int)) as d",
]
#: What every run reads back, one SQL select list for every engine (Spark SQL and delta-rs's
#: DataFusion): W13's and sums tying `k`, `s` and `v` to the row's id, so that a change to the
#: wrong rows shows. Every value is exact (v is a multiple of 1/4, its sums below 2^51).
AGGREGATE = [*dv_table.AGGREGATE, "sum(id * k) AS sum_id_k", "sum(id * length(s)) AS sum_id_len_s",
             "sum((id % 10) * v) AS sum_v_by_id"]  # fmt: skip
OPERATIONS = ("delete", "update", "merge")
DAY0 = date(1970, 1, 1)


class Mismatch(Exception):
    """The table a DML run left is not what the manifest says."""


def files_for(rows: int) -> int:
    return FILES.get(rows, 20)


def merge_shape(rows: int) -> tuple[int, int]:
    """The MERGE source's rows (even) and the stride of its matched ids."""
    half = max(1, round(rows * MERGE_FRACTION / 2))
    return 2 * half, rows // half


def source_ids(rows: int) -> np.ndarray:
    """The MERGE source's ids: every stride-th existing id from 0, then as many new ids."""
    n, stride = merge_shape(rows)
    half = n // 2
    return np.concatenate([np.arange(half, dtype=np.int64) * stride,
                           rows + np.arange(half, dtype=np.int64)])  # fmt: skip


def spark_source(spark, rows: int):
    """The MERGE source as a DataFrame (SOURCE_SLICES partitions), cached and counted."""
    n, stride = merge_shape(rows)
    half = n // 2
    ids = f"CASE WHEN id < {half} THEN id * {stride} ELSE id - {half} + {rows} END AS id"
    df = spark.range(0, n, 1, SOURCE_SLICES).selectExpr(ids).selectExpr(*SOURCE_COLUMNS).cache()
    df.count()
    return df


def arrow_source(rows: int, schema=None):
    """The MERGE source as a pyarrow table, in `schema` (the table's, as delta-rs gives it)
    when given."""
    import pyarrow as pa

    ids = source_ids(rows)
    days = (date(2025, 1, 1) - DAY0).days + ids % 31
    table = pa.table({
        "id": pa.array(ids),
        "k": pa.array((ids % 1000 + 1000).astype(np.int32)),
        "v": pa.array(ids * 0.25),
        "s": pa.array(np.char.add("m-", (ids % 97).astype(str)).astype(object), pa.string()),
        "d": pa.array(days.astype(np.int32), pa.date32()),
    })  # fmt: skip
    return table if schema is None else table.cast(schema)


def _digits(x: np.ndarray) -> np.ndarray:
    """Decimal digits of non-negative integers below 10,000."""
    return 1 + (x >= 10) + (x >= 100) + (x >= 1000)


def _table_rows(ids: np.ndarray) -> dict[str, np.ndarray]:
    """COLUMNS over `ids`, v as 4 v (an integer) and s as its length."""
    return {
        "id": ids,
        "k": ids % 1000,
        "v4": ids * 2 + (ids % 7) * 4,
        "len_s": 2 + _digits(ids % 9973),
        "day": (date(2024, 1, 1) - DAY0).days + ids % 366,
    }


def _source_rows(ids: np.ndarray) -> dict[str, np.ndarray]:
    """SOURCE_COLUMNS over `ids`, in _table_rows' form."""
    return {
        "id": ids,
        "k": ids % 1000 + 1000,
        "v4": ids.copy(),
        "len_s": 2 + _digits(ids % 97),
        "day": (date(2025, 1, 1) - DAY0).days + ids % 31,
    }


def _answer(t: dict[str, np.ndarray]) -> dict:
    """AGGREGATE over rows in _table_rows' form, as dv_table.answer gives a read's."""
    ids = t["id"]
    return {
        "rows": len(ids),
        "sum_id": int(ids.sum()),
        "sum_k": int(t["k"].sum()),
        "sum_v": int(t["v4"].sum()) / 4,
        "sum_len_s": int(t["len_s"].sum()),
        "max_d": (DAY0 + timedelta(days=int(t["day"].max()))).isoformat(),
        "sum_id_k": int((ids * t["k"]).sum()),
        "sum_id_len_s": int((ids * t["len_s"]).sum()),
        "sum_v_by_id": int(((ids % 10) * t["v4"]).sum()) / 4,
    }


def _after(rows: int, operation: str) -> dict[str, np.ndarray]:
    """The table's rows after `operation` (None: as written)."""
    t = _table_rows(np.arange(rows, dtype=np.int64))
    if operation == "delete":
        keep = t["id"] % 1000 != 7  # DELETE_WHERE
        return {c: a[keep] for c, a in t.items()}
    if operation == "update":
        hit = t["id"] % 100 == 3  # UPDATE_WHERE; UPDATE_SET: v + 1, s = 'u'
        return {**t, "v4": t["v4"] + 4 * hit, "len_s": np.where(hit, 1, t["len_s"])}
    if operation == "merge":
        src = _source_rows(source_ids(rows))
        matched = src["id"] < rows  # the table's row i holds id i
        for c, a in t.items():
            a[src["id"][matched]] = src[c][matched]
        return {c: np.concatenate([a, src[c][~matched]]) for c, a in t.items()}
    return t


def expected(rows: int) -> dict:
    """AGGREGATE over the table as written (`table`) and after each operation."""
    return {op: _answer(_after(rows, op)) for op in ("table", *OPERATIONS)}


def w20(rows: int, deletion_vectors: bool = True) -> gen_logs.Table:
    """The cached DML table of `rows` rows, with deletion vectors or without (`-cow`),
    generated by a delta-spark child process."""
    name = f"w20-{rows}" + ("" if deletion_vectors else "-cow")
    extra = () if deletion_vectors else ("--cow",)
    return gen_logs.cached_table(
        name, GENERATOR_VERSION,
        lambda directory: gen_logs.written_by_child(__file__, directory, rows, *extra))


def _write(table: Path, rows: int, deletion_vectors: bool) -> dict:
    """Writes the table with delta-spark (this process's own session); returns the manifest."""
    from engines.delta_spark import DeltaSpark, latest_snapshot

    files = files_for(rows)
    spark = (
        DeltaSpark()
        .session("4g")
        .config("spark.databricks.delta.properties.defaults.enableDeletionVectors",
                str(deletion_vectors).lower())
        .getOrCreate()
    )  # fmt: skip
    spark.sparkContext.setLogLevel("ERROR")
    spark.range(0, rows, 1, files).selectExpr(*COLUMNS).write.format("delta").save(str(table))
    snapshot = latest_snapshot(spark, str(table))
    read = spark.read.format("delta").load(str(table)).selectExpr(*AGGREGATE)
    got, answers = dv_table.answer(read.collect()[0].asDict()), expected(rows)
    config = commit_actions(table, 0)["metaData"][0]["configuration"]
    dvs = config.get("delta.enableDeletionVectors") == "true"
    if got != answers["table"] or snapshot.numOfFiles() != files or dvs != deletion_vectors:
        raise RuntimeError(f"W20 table: {snapshot.numOfFiles()} files (want {files}), read "
                           f"{got} (want {answers['table']}), configuration {config}")  # fmt: skip
    return {
        "version": snapshot.version(),
        "num_files": snapshot.numOfFiles(),
        "size_in_bytes": snapshot.sizeInBytes(),
        "rows": rows,
        "deletion_vectors": deletion_vectors,
        "aggregate": AGGREGATE,
        "answers": answers,
    }


def commit_actions(table: Path, version: int) -> dict[str, list[dict]]:
    """The actions of the commit `version`, by kind (`add`, `remove`, `commitInfo`, ...)."""
    actions: dict[str, list[dict]] = {}
    for line in (table / "_delta_log" / f"{version:020d}.json").read_text().splitlines():
        for kind, action in json.loads(line).items():
            actions.setdefault(kind, []).append(action)
    return actions


def newest_version(table: Path) -> int:
    return max(int(f.name[:20]) for f in (table / "_delta_log").glob("[0-9]*.json"))


def _operate(engine, path: str, operation: str, source) -> None:
    if operation == "delete":
        engine.delete_rows(path, DELETE_WHERE)
    elif operation == "update":
        engine.update_rows(path, UPDATE_WHERE, UPDATE_SET)
    else:
        engine.merge_upsert(path, source, MERGE_ON, SOURCE, TARGET)


def run(engine, table: Path, manifest: dict, timed, operation: str) -> dict:
    """One run of `operation` on a fresh copy of the table, checked afterwards (see the
    module's docstring). The run's `files_removed`, `files_added` and `dv_files` are the
    commit's removes, adds and adds with a deletion vector, `operation` its commitInfo's."""
    version = manifest["version"]
    source = engine.merge_input(manifest["rows"]) if operation == "merge" else None
    try:
        with vacuum_table.fresh_copy(table) as copy:
            _, result = timed(engine, lambda: _operate(engine, str(copy), operation, source))
            newest = newest_version(copy)
            if newest != version + 1:
                raise Mismatch(f"the newest version is {newest}, not {version + 1}")
            actions = commit_actions(copy, version + 1)
            after = engine.load(str(copy))
            got = dv_table.answer(engine.read_rows(str(copy), manifest["aggregate"]))
    finally:
        if hasattr(source, "unpersist"):
            source.unpersist()
    if after.version != version + 1:
        raise Mismatch(f"the engine loads version {after.version}, not {version + 1}")
    want = manifest["answers"][operation]
    wrong = {k: (v, want.get(k)) for k, v in got.items() if v != want.get(k)}
    if wrong or got.keys() != want.keys():
        raise Mismatch(f"read back (got, expected) {wrong or got}")
    if newest_version(table) != version:
        raise Mismatch(f"the cached table {table} has a new version: regenerate it")
    adds = actions.get("add", [])
    result.update(
        files_removed=len(actions.get("remove", [])), files_added=len(adds),
        dv_files=sum(1 for a in adds if a.get("deletionVector")),
        operation=(actions.get("commitInfo") or [{}])[0].get("operation"),
    )  # fmt: skip
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rows", type=int)
    parser.add_argument("--cow", action="store_true", help="without deletion vectors")
    parser.add_argument("--write", type=Path, metavar="TABLE", help="(child process) write here")
    parser.add_argument("--out", type=Path, help="(child process) where its figures go")
    args = parser.parse_args()
    if args.write:
        args.out.write_text(json.dumps(_write(args.write, args.rows, not args.cow)))
        return
    table = w20(args.rows, not args.cow)
    print(table.path, json.dumps(table.manifest))


if __name__ == "__main__":
    main()
