"""Streams from PySpark: a txlog table streamed into a txlog sink (docs/streaming.md), read back by
delta-rs; the foreachBatch pattern with the write's application transaction."""

from __future__ import annotations

from pathlib import Path

import deltalake
from pyspark.sql import DataFrame, SparkSession

import txlog
from txlog_testing import stream_copy


def _ids(df: DataFrame) -> list[int]:
    return sorted(r.id for r in df.select("id").collect())


def test_a_table_streamed_into_a_sink(spark: SparkSession, tmp_path: Path) -> None:
    src, dst, chk = (str(tmp_path / n) for n in ("src", "dst", "chk"))
    for i in range(3):
        txlog.write(spark.range(i * 10, i * 10 + 10).repartition(1), src)
    query = stream_copy(spark, src, dst, chk, maxFilesPerTrigger=1)
    assert _ids(spark.read.format("txlog").load(dst)) == list(range(30))
    # Spark's progress: the rows each batch read, the source and the version it read
    assert sum(p["numInputRows"] for p in query.recentProgress) == 30
    source = query.lastProgress["sources"][0]
    description = source["description"]
    assert description.startswith("TxlogSource[") and " at version " in description
    assert '"isInitialSnapshot"' in source["endOffset"]
    history = txlog.DeltaLog.for_table(spark, dst).history().collect()
    # one commit per batch, a file each, the query's id as the application id
    assert [r.operation for r in history] == ["STREAMING UPDATE"] * 3
    assert txlog.DeltaLog.for_table(spark, dst).snapshot().set_transactions == {query.id: 2}
    # delta-rs reads the sink's every version
    for v in range(3):
        rows = deltalake.DeltaTable(dst, version=v).to_pyarrow_table().column("id").to_pylist()
        assert sorted(rows) == list(range((v + 1) * 10))


def test_foreach_batch_writes_once_per_batch(spark: SparkSession, tmp_path: Path) -> None:
    dst = str(tmp_path / "dst")
    batch = spark.range(5)

    def write_batch(df: DataFrame, batch_id: int) -> None:
        txlog.write(df, dst, txn_app_id="copy-query", txn_version=batch_id)

    write_batch(batch, 0)
    write_batch(batch, 0)  # the same batch again, as after a restart: not written twice
    write_batch(batch, 1)
    assert _ids(spark.read.format("txlog").load(dst)) == sorted(list(range(5)) * 2)


def test_a_delete_fails_the_stream_with_its_class(spark: SparkSession, tmp_path: Path) -> None:
    src, chk = str(tmp_path / "src"), str(tmp_path / "chk")
    txlog.write(spark.range(5), src)

    def drain() -> None:
        query = (
            spark.readStream.format("txlog").load(src)
            .writeStream.format("noop").option("checkpointLocation", chk)
            .trigger(availableNow=True).start()
        )
        query.awaitTermination()

    drain()
    txlog.DeltaLog.for_table(spark, src).delete("true")  # every file removed, none added
    try:
        drain()
    except Exception as e:  # noqa: BLE001 - the class is what is checked
        assert "STREAMING_SOURCE_DELETE" in str(e) and "ignoreDeletes" in str(e)
    else:
        raise AssertionError("the stream read past a delete")
