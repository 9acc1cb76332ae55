"""Prints, as one JSON object, the row count delta-spark reads at every version of the table at
argv[1] (for tests/test_stream_faults.py)."""

from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession


def main() -> None:
    path, package = sys.argv[1], sys.argv[2]
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("txlog-delta-spark-versions")
        .config("spark.jars.packages", package)
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config(
            "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog"
        )
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    latest = spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT 1").collect()[0].version
    counts = {
        v: spark.read.format("delta").option("versionAsOf", v).load(path).count()
        for v in range(latest + 1)
    }
    print(json.dumps(counts), flush=True)


if __name__ == "__main__":
    main()
