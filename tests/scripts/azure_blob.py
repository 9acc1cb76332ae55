"""Azure Blob Storage through hadoop-azure's own `wasb://` client, against a local Azurite, for
tests/test_azurite.py (argv: comma-separated hadoop-azure jars, a local work directory). One
Spark session: a table made on local disk is copied to `wasb://txlog@storageemulator/t`
(hadoop-azure's name for the storage emulator at 127.0.0.1:10000); txlog reads it there, then
tries to write it three ways. Prints what it saw as one JSON object."""

from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession

import txlog
from txlog.errors import TxlogError

TABLE = "wasb://txlog@storageemulator/t"


def session(jars: str) -> SparkSession:
    builder = (
        SparkSession.builder.master("local[1]")
        .appName("txlog-azurite")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.hadoop.fs.wasb.impl", "org.apache.hadoop.fs.azure.NativeAzureFileSystem")
        .config("spark.jars", jars)  # configure_spark adds txlog's jar beside them
    )
    spark = txlog.configure_spark(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def add(spark: SparkSession, name: str):  # noqa: ANN201 - a DataFrame of one add
    return spark.createDataFrame(
        [(name, 100, {}, 1_700_000_000_000, True)],
        "path string, size long, partitionValues map<string,string>, "
        "modificationTime long, dataChange boolean",
    )


def log_names(spark: SparkSession) -> list[str]:
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path(TABLE + "/_delta_log")
    fs = path.getFileSystem(conf)
    return sorted(s.getPath().getName() for s in fs.listStatus(path))


def attempt(spark: SparkSession, name: str) -> dict[str, object]:
    try:
        log = txlog.DeltaLog.for_table(spark, TABLE)
        version = log.start_transaction().add_files(add(spark, name)).commit("WRITE")
        return {"version": version}
    except TxlogError as e:
        return {"error_class": e.error_class, "message": str(e)}


def main() -> None:
    jars, work = sys.argv[1:3]
    spark = session(jars)
    local = f"file://{work}/t"
    txlog.create_table(spark, local, "id BIGINT")
    local_log = txlog.DeltaLog.for_table(spark, local)
    for i in range(3):
        local_log.start_transaction().add_files(add(spark, f"f{i}.parquet")).commit("WRITE")
    local_log.checkpoint()
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    src, dst = jvm.org.apache.hadoop.fs.Path(local), jvm.org.apache.hadoop.fs.Path(TABLE)
    jvm.org.apache.hadoop.fs.FileUtil.copy(
        src.getFileSystem(conf), src, dst.getFileSystem(conf), dst, False, conf)

    out: dict[str, object] = {}
    log = txlog.DeltaLog.for_table(spark, TABLE)
    snap = log.update()
    out["read"] = {"version": snap.version, "num_files": snap.all_files().count()}
    out["publishing"] = log.describe()["publishing"]
    before = log_names(spark)
    out["default"] = attempt(spark, "g0.parquet")
    out["unchanged_after_default"] = log_names(spark) == before
    spark.conf.set("spark.txlog.storage.exclusiveCreateSchemes", "gs,wasb")
    out["exclusive_create"] = attempt(spark, "g1.parquet")
    out["unchanged_after_exclusive_create"] = [
        n for n in log_names(spark) if not n.startswith(".")] == before  # fmt: skip
    spark.conf.unset("spark.txlog.storage.exclusiveCreateSchemes")
    spark.conf.set("spark.txlog.storage.singleWriter", "true")
    out["single_writer"] = attempt(spark, "g2.parquet")
    out["after"] = {"version": txlog.DeltaLog.for_table(spark, TABLE).update().version}
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
