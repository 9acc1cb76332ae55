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

  test("a classic checkpoint written by several tasks is one file the footers count exactly") {
    val dir = table()
    val before = Oracle.both(spark, dir)._2.get
    val r = DeltaLog.forTable(spark, dir).checkpoint(kind = Some("classic"))
    assert(r.files.size === 1)
    val tp = TablePath.qualified(dir, spark.sessionState.newHadoopConf())
    val file = new Path(r.files.head)
    val reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, tp.readConf))
    val rowGroups =
      try reader.getFooter.getBlocks.size
      finally reader.close()
    assert(rowGroups > 1, "the file should hold the row groups of several tasks")
    val fromFooters = ParquetFooters.counts(tp, Seq(file))
    val scanned = StagedFiles.counts(spark, tp, Seq(file), "parquet")
    assert(fromFooters === Some(scanned))
    assert(scanned.adds === r.numAddFiles && scanned.removes === r.numRemoveFiles)
    assert(scanned.total === r.numActions)
    val (ours, ref) = Oracle.both(spark, dir)
    assert(ours.get === before)
    assert(ref.get === before)
  }
}
