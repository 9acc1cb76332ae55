#!/usr/bin/env python3
"""Build the small demo Delta table at examples/tables/demo with delta-spark.

The table is written by the reference implementation (delta-spark, through
PySpark in local[1] mode) so that txlog's reader can be checked against a log
it did not write itself. Afterwards the table is cross-checked with delta-rs
(the `deltalake` package): every version must list the same live files and
return the same rows in both implementations.

Run from the repository root:

    .venv/bin/python examples/make_demo_table.py

Content is deterministic (fixed rows, one shuffle partition, one writer task);
file names, UUIDs and timestamps differ from run to run.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

DELTA_PACKAGE = "io.delta:delta-spark_4.2_2.13:4.4.0"

EXAMPLES_DIR = Path(__file__).resolve().parent
TABLE_DIR = EXAMPLES_DIR / "tables" / "demo"
LOG_DIR = TABLE_DIR / "_delta_log"

# Size budget: the table is committed to the repository.
MAX_TABLE_BYTES = 200 * 1024

# Expected operation and live file count per version; checked after writing.
EXPECTED = [
    # (version, operation, live files)
    (0, "CREATE TABLE", 0),
    (1, "WRITE", 3),            # initial load: US, DE, FR (one file each)
    (2, "WRITE", 5),            # append: DE, US
    (3, "UPDATE", 5),           # FR file rewritten (copy-on-write)
    (4, "DELETE", 5),           # 2 rows out of the first US file -> deletion vector
    (5, "SET TBLPROPERTIES", 5),  # metadata only; checkpoint 5 written after it
    (6, "ADD COLUMNS", 5),      # schema change: new nullable column `channel`
    (7, "WRITE", 7),            # append with the new column: JP, US
    (8, "OPTIMIZE", 6),         # DE: 2 files compacted into 1 (dataChange=false)
    (9, "DELETE", 6),           # 1 more row from the same US file -> DV replaced
]
LATEST = EXPECTED[-1][0]
CHECKPOINT_VERSION = 5

BASE_SCHEMA = "id LONG, name STRING, amount DOUBLE, event_date DATE, country STRING"


def d(s: str) -> dt.date:
    return dt.date.fromisoformat(s)


# Fixed input rows: (id, name, amount, event_date, country)
LOAD_1 = [
    (1, "alice", 10.5, d("2024-01-01"), "US"),
    (2, "bob", 20.0, d("2024-01-02"), "US"),
    (3, "carol", 30.25, d("2024-01-03"), "US"),
    (4, "dave", 40.0, d("2024-01-04"), "US"),
    (5, "erin", 50.75, d("2024-01-05"), "US"),
    (6, "frank", 12.0, d("2024-01-01"), "DE"),
    (7, "grace", 22.5, d("2024-01-02"), "DE"),
    (8, "heidi", 32.0, d("2024-01-03"), "DE"),
    (9, "ivan", 42.125, d("2024-01-04"), "DE"),
    (10, "judy", 15.0, d("2024-01-01"), "FR"),
    (11, "mallory", 25.5, d("2024-01-02"), "FR"),
    (12, "niaj", 35.0, d("2024-01-03"), "FR"),
]
LOAD_2 = [
    (13, "olivia", 11.0, d("2024-02-01"), "DE"),
    (14, "peggy", 21.0, d("2024-02-02"), "DE"),
    (15, "rupert", 31.0, d("2024-02-03"), "DE"),
    (16, "sybil", 41.0, d("2024-02-01"), "US"),
    (17, "trent", 51.0, d("2024-02-02"), "US"),
    (18, "victor", 61.0, d("2024-02-03"), "US"),
]
# Written after ADD COLUMNS: (id, name, amount, event_date, country, channel)
LOAD_3 = [
    (19, "walter", 9.99, d("2024-03-01"), "JP", "web"),
    (20, "xavier", 19.99, d("2024-03-02"), "JP", "store"),
    (21, "yvonne", 29.99, d("2024-03-03"), "JP", None),
    (22, "zoe", 39.99, d("2024-03-01"), "US", "web"),
    (23, "amir", 49.99, d("2024-03-02"), "US", "app"),
]


def fail(msg: str) -> None:
    print(f"FAILED: {msg}", file=sys.stderr)
    sys.exit(1)


def check(cond: bool, msg: str) -> None:
    if not cond:
        fail(msg)


# ---------------------------------------------------------------------------
# Spark session
# ---------------------------------------------------------------------------

def make_spark(scratch: Path):
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[1]")
        .appName("txlog-make-demo-table")
        .config("spark.jars.packages", DELTA_PACKAGE)
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        # Determinism: one shuffle partition, fixed time zone, no UI.
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        # Delta replays the log into 50 partitions by default; one is plenty
        # for a table this small and much faster on a small machine.
        .config("spark.databricks.delta.snapshotPartitions", "1")
        # Keep metastore/warehouse debris out of the repository; we only use
        # path-based tables (delta.`/path`).
        .config("spark.sql.warehouse.dir", str(scratch / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={scratch}")
        .getOrCreate()
    )


# ---------------------------------------------------------------------------
# Writing the table, one commit per step
# ---------------------------------------------------------------------------

def write_table(spark) -> None:
    t = f"delta.`{TABLE_DIR}`"

    def append(rows, schema, user_metadata=None):
        # coalesce(1): a single writer task, hence exactly one file per
        # partition value touched by this commit.
        w = spark.createDataFrame(rows, schema).coalesce(1).write.format("delta").mode("append")
        if user_metadata:
            w = w.option("userMetadata", user_metadata)
        w.save(str(TABLE_DIR))

    # v0: CREATE TABLE (empty). Deletion vectors on (protocol 3/7 with the
    # deletionVectors feature); checkpoint every 5 commits.
    spark.sql(f"""
        CREATE TABLE {t} ({BASE_SCHEMA})
        USING delta
        PARTITIONED BY (country)
        TBLPROPERTIES (
          'delta.enableDeletionVectors' = 'true',
          'delta.checkpointInterval' = '5'
        )
    """)

    # v1: initial load, with userMetadata on the commit.
    append(LOAD_1, BASE_SCHEMA, user_metadata="demo: initial load")

    # v2: a second append.
    append(LOAD_2, BASE_SCHEMA)

    # v3: UPDATE in copy-on-write mode (DVs disabled for this statement only),
    # so the log gets an ordinary remove tombstone + add before the checkpoint.
    spark.conf.set("spark.databricks.delta.update.deletionVectors.persistent", "false")
    spark.sql(f"UPDATE {t} SET amount = amount * 2 WHERE country = 'FR' AND id >= 11")
    spark.conf.unset("spark.databricks.delta.update.deletionVectors.persistent")

    # v4: DELETE two rows out of the 5-row US file from v1 -> deletion vector.
    spark.sql(f"DELETE FROM {t} WHERE id IN (2, 3)")

    # v5: metadata-only change. The checkpoint for version 5 is written here.
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('txlog.demo.owner' = 'examples')")

    # v6: schema change (new nullable column).
    spark.sql(f"ALTER TABLE {t} ADD COLUMNS (channel STRING)")

    # v7: append rows that use the new column (new partition JP).
    append(LOAD_3, BASE_SCHEMA + ", channel STRING")

    # v8: OPTIMIZE one partition: the two DE files are compacted into one
    # (remove/add with dataChange=false). The US partition, which holds the
    # DV file, is left alone so the DV stays live.
    spark.sql(f"OPTIMIZE {t} WHERE country = 'DE'")

    # v9: DELETE one more row from the file that already has a DV: the old
    # (path, DV) pair is removed and re-added with a new DV.
    spark.conf.set("spark.databricks.delta.commitInfo.userMetadata", "demo: second delete")
    spark.sql(f"DELETE FROM {t} WHERE id = 4")
    spark.conf.unset("spark.databricks.delta.commitInfo.userMetadata")


def clean_sidecars() -> None:
    """Remove Hadoop checksum sidecars (.<name>.crc) and empty directories.

    Delta's own version checksum files (_delta_log/NNN.crc) are kept: they do
    not start with a dot.
    """
    for root, dirs, files in os.walk(TABLE_DIR):
        for f in files:
            if f.startswith(".") and f.endswith(".crc"):
                os.remove(os.path.join(root, f))
    for root, dirs, files in os.walk(TABLE_DIR, topdown=False):
        if root != str(TABLE_DIR) and not os.listdir(root):
            os.rmdir(root)


# ---------------------------------------------------------------------------
# Inspection with delta-spark
# ---------------------------------------------------------------------------

def rel(uri_or_path: str) -> str:
    """Path of a data file relative to the table root (URI-decoded)."""
    p = unquote(urlparse(uri_or_path).path) if ":" in uri_or_path else uri_or_path
    root = str(TABLE_DIR) + "/"
    check(p.startswith(root), f"file outside table root: {uri_or_path}")
    return p[len(root):]


def spark_version_view(spark, v: int):
    df = spark.read.format("delta").option("versionAsOf", v).load(str(TABLE_DIR))
    files = sorted(rel(f) for f in df.inputFiles())
    rows = sorted(tuple(r) for r in df.select(*sorted(df.columns)).collect())
    return files, rows, sorted(df.columns)


def inspect_with_spark(spark):
    history = {
        r["version"]: r
        for r in spark.sql(f"DESCRIBE HISTORY delta.`{TABLE_DIR}`").collect()
    }
    detail = spark.sql(f"DESCRIBE DETAIL delta.`{TABLE_DIR}`").collect()[0]
    views = {v: spark_version_view(spark, v) for v, _, _ in EXPECTED}
    return history, detail, views


# ---------------------------------------------------------------------------
# Cross-check with delta-rs
# ---------------------------------------------------------------------------

def deltars_version_view(v: int, columns):
    import pyarrow as pa
    from deltalake import DeltaTable

    dtab = DeltaTable(str(TABLE_DIR), version=v)
    check(dtab.version() == v, f"delta-rs loaded version {dtab.version()}, wanted {v}")
    files = sorted(rel(u) for u in dtab.file_uris())
    # scan() applies deletion vectors; to_pyarrow_table() would not. It
    # returns an arro3 reader, which pyarrow imports through the C stream API.
    tbl = pa.table(dtab.scan(columns=columns)) if files else None
    rows = [] if tbl is None else sorted(
        tuple(r[c] for c in columns) for r in tbl.to_pylist()
    )
    return dtab, files, rows


def verify_with_deltars(spark_views) -> None:
    import deltalake
    import pyarrow as pa
    from deltalake import DeltaTable

    print(f"\ndelta-rs (deltalake {deltalake.__version__}) cross-check")
    latest = DeltaTable(str(TABLE_DIR))
    check(latest.version() == LATEST, f"delta-rs latest version {latest.version()} != {LATEST}")
    print(f"  latest version: {latest.version()}, live files: {len(latest.file_uris())}")

    for v, _, _ in EXPECTED:
        s_files, s_rows, cols = spark_views[v]
        _, r_files, r_rows = deltars_version_view(v, cols)
        check(r_files == s_files,
              f"v{v}: live files differ\n  delta-spark: {s_files}\n  delta-rs:    {r_files}")
        check(r_rows == s_rows,
              f"v{v}: rows differ\n  delta-spark: {s_rows}\n  delta-rs:    {r_rows}")
        print(f"  v{v}: {len(r_files)} files, {len(r_rows)} rows - agree")

    # Time travel to version 2 explicitly, as a reader would.
    v2 = DeltaTable(str(TABLE_DIR), version=2)
    ids = sorted(pa.table(v2.scan(columns=["id"])).column("id").to_pylist())
    check(ids == list(range(1, 19)), f"time travel to v2: unexpected ids {ids}")
    print(f"  time travel to v2: version {v2.version()}, {len(v2.file_uris())} files, ids 1..18")

    # The latest snapshot has exactly one file with a DV (3 of 5 rows deleted).
    dvs = pa.table(latest.deletion_vectors()).to_pylist()
    check(len(dvs) == 1, f"delta-rs sees {len(dvs)} files with a DV, wanted 1")
    deleted = dvs[0]["selection_vector"].count(False)
    check(deleted == 3, f"DV deletes {deleted} rows, wanted 3")
    print(f"  deletion vector on {rel(dvs[0]['filepath'])}: {deleted} rows deleted")


# ---------------------------------------------------------------------------
# Checks on the written log and the summary
# ---------------------------------------------------------------------------

def read_commit(v: int) -> list[dict]:
    with open(LOG_DIR / f"{v:020d}.json") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def check_log(history, detail, views) -> None:
    check(sorted(history) == list(range(LATEST + 1)),
          f"unexpected versions in history: {sorted(history)}")
    for v, op, n_files in EXPECTED:
        got_op = history[v]["operation"]
        check(got_op == op, f"v{v}: operation {got_op!r}, wanted {op!r}")
        got_n = len(views[v][0])
        check(got_n == n_files, f"v{v}: {got_n} live files, wanted {n_files}")
    check(detail["numFiles"] == EXPECTED[-1][2],
          f"DESCRIBE DETAIL numFiles {detail['numFiles']} != {EXPECTED[-1][2]}")

    # Checkpoint in the middle, with commits after it.
    cp = LOG_DIR / f"{CHECKPOINT_VERSION:020d}.checkpoint.parquet"
    check(cp.exists(), f"missing {cp.name}")
    last_cp = json.loads((LOG_DIR / "_last_checkpoint").read_text())
    check(last_cp["version"] == CHECKPOINT_VERSION, f"_last_checkpoint: {last_cp}")

    # Deletion vectors were actually written to disk.
    check(any(TABLE_DIR.glob("deletion_vector_*.bin")), "no deletion_vector_*.bin written")

    # Plain table: no in-commit timestamps; userMetadata present where set.
    for v in range(LATEST + 1):
        for action in read_commit(v):
            if "commitInfo" in action:
                check("inCommitTimestamp" not in action["commitInfo"],
                      f"v{v}: commit has an inCommitTimestamp")
            if "protocol" in action:
                feats = action["protocol"].get("writerFeatures", [])
                check("inCommitTimestamp" not in feats, f"v{v}: ICT feature enabled")
    check(history[1]["userMetadata"] == "demo: initial load", "v1: userMetadata missing")
    check(history[9]["userMetadata"] == "demo: second delete", "v9: userMetadata missing")

    # The file actions have the shapes the README promises.
    def actions(v, kind):
        return [a[kind] for a in read_commit(v) if kind in a]

    check(not any(a.get("deletionVector") for a in actions(3, "add")),
          "v3: UPDATE should be copy-on-write (no DV)")
    check([bool(a.get("deletionVector")) for a in actions(4, "add")] == [True],
          "v4: DELETE should add one file with a DV")
    check(not any(a.get("dataChange") for a in actions(8, "add") + actions(8, "remove")),
          "v8: OPTIMIZE actions should have dataChange=false")
    (old_dv,) = [a["deletionVector"] for a in actions(4, "add")]
    check([a.get("deletionVector") for a in actions(9, "remove")] == [old_dv],
          "v9: remove should carry the DV written at v4")


def describe_commit(v: int) -> str:
    counts: dict[str, int] = {}
    dv_adds = 0
    for action in read_commit(v):
        for k, val in action.items():
            if k == "commitInfo":
                continue
            counts[k] = counts.get(k, 0) + 1
            if k == "add" and val.get("deletionVector"):
                dv_adds += 1
    parts = [f"{n} {k}" for k, n in sorted(counts.items())]
    if dv_adds:
        parts.append(f"{dv_adds} of the adds with a DV")
    return ", ".join(parts)


def summary(history, detail) -> None:
    total = sum(p.stat().st_size for p in TABLE_DIR.rglob("*") if p.is_file())
    n_files = sum(1 for p in TABLE_DIR.rglob("*") if p.is_file())
    dv_files = sorted(p.name for p in TABLE_DIR.glob("deletion_vector_*.bin"))
    checkpoints = sorted(p.name for p in LOG_DIR.glob("*.checkpoint*.parquet"))

    print(f"\nDemo table written to {TABLE_DIR}")
    print(f"  latest version {LATEST}, live files {detail['numFiles']}, "
          f"partitioned by {list(detail['partitionColumns'])}")
    print(f"  protocol: reader {detail['minReaderVersion']}, writer {detail['minWriterVersion']}, "
          f"features {sorted(detail['tableFeatures'])}")
    for v, _, n in EXPECTED:
        h = history[v]
        um = f"  userMetadata={h['userMetadata']!r}" if h["userMetadata"] else ""
        print(f"  v{v}: {h['operation']:<17} live files {n}  [{describe_commit(v)}]{um}")
    print(f"  deletion vector files: {dv_files}")
    print(f"  checkpoints: {checkpoints}; _last_checkpoint -> version {CHECKPOINT_VERSION}")
    print(f"  on disk: {n_files} files, {total} bytes")
    check(total < MAX_TABLE_BYTES, f"table is {total} bytes, budget {MAX_TABLE_BYTES}")


def main() -> None:
    if TABLE_DIR.exists():
        shutil.rmtree(TABLE_DIR)
    TABLE_DIR.parent.mkdir(parents=True, exist_ok=True)

    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="txlog-demo-") as scratch:
        spark = make_spark(Path(scratch))
        spark.sparkContext.setLogLevel("WARN")
        try:
            write_table(spark)
            clean_sidecars()
            t1 = time.monotonic()
            history, detail, views = inspect_with_spark(spark)
        finally:
            spark.stop()
    print(f"wrote the table in {t1 - t0:.0f}s, read it back with delta-spark "
          f"in {time.monotonic() - t1:.0f}s")

    check_log(history, detail, views)
    summary(history, detail)
    verify_with_deltars(views)
    print("\nOK")


if __name__ == "__main__":
    main()
