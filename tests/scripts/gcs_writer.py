"""A writer process for tests/test_gcs_emulator.py: a Spark session that reaches a local
fake-gcs-server through the Google Cloud Storage connector (argv: connector jar, server URL,
table path, writer id, commits, mode), then either creates the table (mode ``create``) or
commits one file per commit (``write``), printing each committed version, or prints the
snapshot's version, file count and ``describe``'s publishing as JSON (``read``)."""

from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession

import txlog

# Hadoop 3.5's core-default.xml gives some fs.gs.* sizes with unit suffixes ("64m") that the
# connector's 2.x releases read as plain numbers: the same sizes in bytes.
GCS_SIZES = {
    "fs.gs.block.size": 64 << 20,
    "fs.gs.outputstream.buffer.size": 8 << 20,
    "fs.gs.rewrite.max.chunk.size": 512 << 20,
    "fs.gs.inputstream.inplace.seek.limit": 8 << 20,
    "fs.gs.inputstream.min.range.request.size": 2 << 20,
}


def session(jar: str, url: str) -> SparkSession:
    builder = (
        SparkSession.builder.master("local[1]")
        .appName("txlog-gcs-writer")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.hadoop.fs.gs.impl", "com.google.cloud.hadoop.fs.gcs.GoogleHadoopFileSystem")
        .config("spark.hadoop.fs.gs.storage.root.url", url)
        .config("spark.hadoop.fs.gs.auth.null.enable", "true")
        .config("spark.hadoop.fs.gs.auth.service.account.enable", "false")
        .config("spark.hadoop.fs.gs.project.id", "txlog-test")
        .config("spark.jars", jar)  # configure_spark adds txlog's jar beside it
    )
    for key, value in GCS_SIZES.items():
        builder = builder.config(f"spark.hadoop.{key}", str(value))
    spark = txlog.configure_spark(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main() -> None:
    jar, url, path, writer, commits, mode = sys.argv[1:7]
    spark = session(jar, url)
    if mode == "create":
        txlog.create_table(spark, path, "id BIGINT")
        return
    log = txlog.DeltaLog.for_table(spark, path)
    if mode == "read":
        snap = log.update()
        print(json.dumps({"version": snap.version, "num_files": snap.all_files().count(),
                          "publishing": log.describe()["publishing"]}), flush=True)
        return
    for i in range(int(commits)):
        df = spark.createDataFrame(
            [(f"w{writer}-{i}.parquet", 100 + i, {}, 1_700_000_000_000, True)],
            "path string, size long, partitionValues map<string,string>, "
            "modificationTime long, dataChange boolean",
        )
        print(log.start_transaction().add_files(df).commit("WRITE"), flush=True)


if __name__ == "__main__":
    main()
