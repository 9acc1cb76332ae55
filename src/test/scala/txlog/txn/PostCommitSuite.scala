package txlog.txn

import java.nio.file.Files

import org.apache.spark.sql.delta.{DeltaLog => RefLog}

import txlog.{DeltaLog, SparkSuite}

/** After a commit: a checkpoint every `delta.checkpointInterval` commits, readable by delta-spark;
  * failures are reported, not thrown.
  */
class PostCommitSuite extends SparkSuite {

  /** A delta-spark table at version 4 with checkpointInterval 4, its checkpoint removed. */
  private def table(): String = {
    val dir = tempDir("pc").resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$dir` (id BIGINT) USING delta " +
        "TBLPROPERTIES ('delta.checkpointInterval' = '4')"
    )
    (1 to 4).foreach(i =>
      spark.range(i * 10, i * 10 + 3).write.format("delta").mode("append").save(dir)
    )
    val log = new java.io.File(dir, "_delta_log")
    log
      .listFiles()
      .filter(f => f.getName.contains(".checkpoint") || f.getName == "_last_checkpoint")
      .foreach(f => Files.delete(f.toPath))
    dir
  }

  test("a checkpoint is written when the version is a multiple of delta.checkpointInterval") {
    val dir = table()
    RefLog.clearCache()
    val filesFromCommits = RefLog.forTable(spark, dir).update().allFiles.count()
    val log = DeltaLog.forTable(spark, dir)
    val before3 = log.snapshot(2L)
    val none = PostCommit.run(log.context, 3L, Some(before3))
    assert(none.checkpoint.isEmpty && none.problems.isEmpty, none)
    val report = PostCommit.run(log.context, 4L, Some(log.snapshot(3L)))
    assert(report.problems.isEmpty, report.problems)
    assert(report.checkpoint.map(_.version) === Some(4L))
    // Spec name of a classic checkpoint of version 4.
    assert(new java.io.File(dir, "_delta_log/00000000000000000004.checkpoint.parquet").isFile)
    RefLog.clearCache()
    val ref = RefLog.forTable(spark, dir).update()
    assert(ref.version === 4L)
    assert(ref.logSegment.checkpointProvider.version === 4L)
    assert(ref.allFiles.count() === filesFromCommits)
  }

  test("a failing checkpoint is reported, not thrown") {
    val dir = table()
    val log = DeltaLog.forTable(spark, dir)
    val read = log.snapshot(3L)
    // An unreadable log directory: the checkpoint step fails; the report says so.
    val logDir = new java.io.File(dir, "_delta_log")
    new java.io.File(logDir, "00000000000000000002.json").delete()
    new java.io.File(logDir, "00000000000000000001.json").delete()
    val report = PostCommit.run(log.context, 4L, Some(read))
    assert(report.checkpoint.isEmpty)
    assert(report.problems.exists(_.startsWith("checkpoint:")), report.problems)
  }
}
