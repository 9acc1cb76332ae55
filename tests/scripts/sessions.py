"""The local Spark sessions of the test scripts (processes of their own): plain, and with
delta-spark (the Maven coordinates `package`, test-only: an oracle, never txlog's)."""

from __future__ import annotations

from pyspark.sql import SparkSession


def local(app: str, cores: int) -> SparkSession.Builder:
    return (
        SparkSession.builder.master(f"local[{cores}]")
        .appName(app)
        .config("spark.sql.shuffle.partitions", str(cores))
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )


def delta_spark(app: str, cores: int, package: str) -> SparkSession:
    spark = (
        local(app, cores)
        .config("spark.jars.packages", package)
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config(
            "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog"
        )
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark
