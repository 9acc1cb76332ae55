package txlog.checkpoint

import org.apache.hadoop.fs.Path
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile

import txlog.{DeltaLog, Oracle, SparkSuite}
import txlog.log.TablePath

/** A checkpoint that must be one file is encoded by several tasks and joined row group by row
  * group; its counts come from the footers. Both must agree with what a scan of the file finds.
  */
class SingleFileCheckpointSuite extends SparkSuite {

  private def table(): String = {
    val dir = tempDir().resolve("t").toString
    for (i <- 0 until 3) {
      spark
        .range(i * 30, i * 30 + 30)
        .selectExpr("id", "cast(id % 3 as int) as p")
        .repartition(6)
        .write
        .format("delta")
        .partitionBy("p")
        .mode("append")
        .save(dir)
    }
    spark.sql(s"DELETE FROM delta.`$dir` WHERE id < 10")
    dir
  }

  private def rowGroups(file: Path, tp: TablePath): Int = {
    val reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, tp.readConf))
    try reader.getFooter.getBlocks.size
    finally reader.close()
  }

  test("a small table's classic checkpoint is written by one task: one row group, nothing joined") {
    val dir = table()
    val before = Oracle.both(spark, dir)._2.get
    val r = DeltaLog.forTable(spark, dir).checkpoint(kind = Some("classic"))
    val tp = TablePath.qualified(dir, spark.sessionState.newHadoopConf())
    assert(r.files.size === 1)
    assert(rowGroups(new Path(r.files.head), tp) === 1)
    val (ours, ref) = Oracle.both(spark, dir)
    assert(ours.get === before)
    assert(ref.get === before)
  }

  test("a classic checkpoint written by several tasks is one file the footers count exactly") {
    val dir = table()
    val before = Oracle.both(spark, dir)._2.get
    // several tasks even for this small table (one task writes a small table's file alone)
    val key = txlog.config.TxlogConf.CheckpointMaxOneTaskLogBytes.key
    spark.conf.set(key, "0")
    val r =
      try DeltaLog.forTable(spark, dir).checkpoint(kind = Some("classic"))
      finally spark.conf.unset(key)
    assert(r.files.size === 1)
    val tp = TablePath.qualified(dir, spark.sessionState.newHadoopConf())
    val file = new Path(r.files.head)
    assert(rowGroups(file, tp) > 1, "the file should hold the row groups of several tasks")
    val fromFooters = ParquetFooters.counts(tp, Seq(file))
    val scanned = CheckpointStaging.counts(spark, tp, Seq(file), "parquet")
    assert(fromFooters === Some(scanned))
    assert(scanned.adds === r.numAddFiles && scanned.removes === r.numRemoveFiles)
    assert(scanned.total === r.numActions)
    val (ours, ref) = Oracle.both(spark, dir)
    assert(ours.get === before)
    assert(ref.get === before)
  }
}
