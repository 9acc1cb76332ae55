package txlog.checkpoint

import java.nio.file.Files

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.hadoop.fs.Path
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.spark.sql.delta.{DeltaLog => RefLog}

import txlog.{DeltaLog, Fixtures, SparkSuite, Snapshot}
import txlog.testing.{Breadth, JobDescriptions}

/** A small table's classic checkpoint written on the driver ([[DriverCheckpointFile]]) is the file
  * Spark's write job makes of the same snapshot: the same parquet schema (to each field's
  * repetition), the same Spark row metadata in the footer and the same rows; a commit's checkpoint
  * runs no Spark job, and delta-spark reads it. Past the budget, or with Spark's local evaluation
  * of a plan turned off, the job writes it.
  */
class DriverCheckpointFileSuite extends SparkSuite {

  /** The checkpoint of `s` written both ways into `dir`: (driver file, job file), or None when the
    * driver does not take it.
    */
  private def bothWays(s: Snapshot, dir: java.nio.file.Path): Option[(Path, Path)] = {
    val table = s.segment.table
    val content = new CheckpointContent(spark, s, s.tombstoneCutoff)
    val nonFile = content.nonFileRows(v2Spec = false).drop("checkpointMetadata")
    val driver = new Path(dir.resolve("driver.parquet").toUri)
    val options = CheckpointStaging.ParquetWriteOptions
    if (!DriverCheckpointFile.write(spark, s, content, nonFile, table, driver, options)) None
    else {
      val df = CheckpointContent.union(Seq(nonFile, content.fileRows(parquet = true)))
      val staged = CheckpointStaging.write(
        table,
        df.coalesce(1),
        new Path(dir.resolve("job").toUri),
        "parquet"
      )
      Some(driver -> staged.head.status.getPath)
    }
  }

  private def footer(p: Path) = {
    val r =
      ParquetFileReader.open(HadoopInputFile.fromPath(p, spark.sparkContext.hadoopConfiguration))
    try {
      val meta = r.getFooter.getFileMetaData
      (
        meta.getSchema.toString,
        meta.getKeyValueMetaData.asScala.get("org.apache.spark.sql.parquet.row.metadata")
      )
    } finally r.close()
  }

  private def rows(p: Path): Seq[String] =
    spark.read.parquet(p.toString).collect().map(_.toString).toSeq.sorted

  test("on small fixtures: the job's parquet schema, footer metadata and rows") {
    assume(Fixtures.available, Fixtures.skipMessage)
    // an eighth of them a day (the test below takes a commit's case, a table with a checkpoint)
    val names = Breadth.share(Fixtures.tables, 8, "DriverCheckpointFileSuite")(_ => false)
    var compared = 0
    names.foreach { name =>
      Try(DeltaLog.forTable(spark, Fixtures.path(name)).snapshot()).toOption.foreach { s =>
        val dir = tempDir("driver-checkpoint")
        Try(bothWays(s, dir)).toOption.flatten.foreach { case (driver, job) =>
          assert(footer(driver) === footer(job), name)
          assert(rows(driver) === rows(job), name)
          compared += 1
        }
      }
    }
    info(s"compared on $compared of ${names.size} fixtures")
    assert(compared >= names.size / 2, "most small fixtures are written on the driver")
  }

  test("a small table's checkpoint runs no job; delta-spark reads it") {
    val dir = tempDir("driver-checkpoint").resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$dir` (id BIGINT, p STRING) USING delta PARTITIONED BY (p) " +
        "TBLPROPERTIES ('delta.checkpointInterval' = '100', " +
        "'delta.checkpoint.writeStatsAsStruct' = 'true')"
    )
    (1 to 6).foreach(i => spark.sql(s"INSERT INTO delta.`$dir` VALUES ($i, 'p${i % 2}')"))
    spark.sql(s"DELETE FROM delta.`$dir` WHERE id = 1")
    RefLog.clearCache()
    // delta-spark's live files before the checkpoint: what it must read from it after
    val expected = RefLog.forTable(spark, dir).update().allFiles.collect().map(_.path).toSet
    val log = DeltaLog.forTable(spark, dir)
    val (result, jobs) = JobDescriptions.of(spark)(log.checkpoint())
    assert(jobs.isEmpty, jobs)
    assert(result.kind === "classic" && result.numRemoveFiles === 1L && result.numAddFiles === 5L)
    RefLog.clearCache()
    val ref = RefLog.forTable(spark, dir).update()
    assert(ref.checkpointProvider.version === result.version)
    assert(expected.size === 5 && ref.allFiles.collect().map(_.path).toSet === expected)
    assert(spark.read.format("delta").load(dir).count() === 5L)
  }

  test("every tenth commit's checkpoint, on a fixture with a checkpoint: no job") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val dir = txlog.restore.RestoreOracle.copy(
      java.nio.file.Paths.get(Fixtures.path("golden/basic-with-inserts-deletes-checkpoint")),
      "driver-checkpoint"
    )
    val log = DeltaLog.forTable(spark, dir.toString)
    val start = log.snapshot().version
    val next = (start / 10 + 1) * 10
    val results = (start + 1 to next).map { v =>
      val txn = log.startTransaction()
      val unpartitioned = org.apache.spark.sql.functions.typedLit(Map.empty[String, String])
      txn.addFiles(
        txlog.txn.TxnTestKit
          .adds(spark, Seq(s"c$v.parquet"))
          .withColumn("partitionValues", unpartitioned)
      )
      JobDescriptions.of(spark)(txn.commit())
    }
    val (last, jobs) = results.last
    assert(last.version === next)
    assert(jobs.filter(_.contains("checkpoint")).isEmpty, jobs)
    assert(DeltaLog.forTable(spark, dir.toString).snapshot().checkpointVersion === Some(next))
  }

  test("without Spark's local evaluation of plans, or typed statistics only: the job writes it") {
    def table(props: String): String = {
      val dir = tempDir("driver-checkpoint").resolve("t").toString
      spark.sql(
        s"CREATE TABLE delta.`$dir` (id BIGINT) USING delta TBLPROPERTIES " +
          s"('delta.checkpointInterval' = '100'$props)"
      )
      (1 to 3).foreach(i => spark.sql(s"INSERT INTO delta.`$dir` VALUES ($i)"))
      dir
    }
    def checkpointJobs(dir: String): Seq[String] =
      JobDescriptions
        .of(spark)(DeltaLog.forTable(spark, dir).checkpoint())
        ._2
        .filter(_.contains("checkpoint"))
    val rule = "org.apache.spark.sql.catalyst.optimizer.ConvertToLocalRelation"
    val plain = table("")
    withConf("spark.sql.optimizer.excludedRules" -> rule) {
      assert(checkpointJobs(plain).nonEmpty)
    }
    RefLog.clearCache()
    assert(RefLog.forTable(spark, plain).update().allFiles.count() === 3L)
    // a checkpoint of typed statistics only, then one more commit: txlog's checkpoint of that
    // version has the statistics as JSON again (Spark's plan restores them)
    val typed = table(
      ", 'delta.checkpoint.writeStatsAsJson' = 'false', " +
        "'delta.checkpoint.writeStatsAsStruct' = 'true'"
    )
    RefLog.forTable(spark, typed).checkpoint()
    spark.sql(
      s"ALTER TABLE delta.`$typed` SET TBLPROPERTIES " +
        "('delta.checkpoint.writeStatsAsJson' = 'true')"
    )
    assert(checkpointJobs(typed).nonEmpty)
    val cp = DeltaLog.forTable(spark, typed).snapshot()
    assert(cp.checkpointVersion === Some(cp.version))
    val stats = cp.allFiles.select("stats").collect().map(_.getString(0))
    assert(stats.length === 3 && stats.forall(s => s != null && s.contains("numRecords")), stats)
  }
}
