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
import os
import shutil
import tempfile
import time
from pathlib import Path

from demo_table_checks import (  # noqa: E402 - beside this script
    TABLE_DIR,
    inspect_with_spark,
    check_log,
    summary,
    verify_with_deltars,
)

DELTA_PACKAGE = "io.delta:delta-spark_4.2_2.13:4.4.0"

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
