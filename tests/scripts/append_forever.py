"""A writer process for tests/test_killed_writer.py: appends one file per commit to the table
at argv[1] through txlog until it is killed, printing each committed version (flushed)."""

from __future__ import annotations

import sys

from pyspark.sql import SparkSession

import txlog


def main() -> None:
    path = sys.argv[1]
    builder = (
        SparkSession.builder.master("local[1]")
        .appName("txlog-killed-writer")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )
    spark = txlog.configure_spark(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    log = txlog.DeltaLog.for_table(spark, path)
    i = 0
    while True:
        i += 1
        df = spark.createDataFrame(
            [(f"f{i}.parquet", 100 + i, {}, 1_700_000_000_000, True)],
            "path string, size long, partitionValues map<string,string>, "
            "modificationTime long, dataChange boolean",
        )
        version = log.start_transaction().add_files(df).commit("WRITE")
        print(version, flush=True)


if __name__ == "__main__":
    main()
