"""Writes a table with the change data feed on through delta-spark and records delta-spark's
``table_changes`` of it as parquet, for tests/test_changes.py (run in its own process: the test
session has no delta-spark).

    python tests/changes_oracle.py <work dir> <delta jar>[,<delta jar>...]

Writes ``<work dir>/table`` and ``<work dir>/expected/<start>_<end>`` for the ranges it prints.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyspark.sql import SparkSession

RANGES = [(0, None), (1, 3), (2, 2)]


def main(work: Path, jars: str) -> None:
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("txlog-changes-oracle")
        .config("spark.jars", jars)
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.databricks.delta.snapshotPartitions", "2")
        .config("spark.sql.codegen.wholeStage", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    t = f"delta.`{work / 'table'}`"
    for statement in [
        f"CREATE TABLE {t} (id INT, name STRING, p STRING) USING delta PARTITIONED BY (p) "
        "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')",
        f"INSERT INTO {t} SELECT CAST(id AS INT), concat('n', id), "
        "CASE WHEN id < 5 THEN 'a' ELSE 'b' END FROM range(0, 10)",
        f"UPDATE {t} SET name = 'updated' WHERE id IN (1, 7)",
        f"DELETE FROM {t} WHERE p = 'a' AND id > 2",
        f"MERGE INTO {t} USING (SELECT CAST(id AS INT) AS id FROM range(8, 12)) s "
        f"ON {t}.id = s.id WHEN MATCHED THEN DELETE "
        "WHEN NOT MATCHED THEN INSERT (id, name, p) VALUES (s.id, 'new', 'b')",
    ]:
        spark.sql(statement)
    last = spark.sql(f"DESCRIBE HISTORY {t}").selectExpr("max(version)").head()[0]
    for start, end in RANGES:
        df = spark.sql(
            f"SELECT * FROM table_changes_by_path('{work / 'table'}', {start}, "
            f"{last if end is None else end})"
        )
        df.write.parquet(str(work / "expected" / f"{start}_{'latest' if end is None else end}"))
    spark.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
