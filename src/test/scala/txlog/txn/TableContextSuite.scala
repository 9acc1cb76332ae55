package txlog.txn

import java.nio.file.Path

import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.functions.col

import txlog.{DeltaLog, SparkSuite}
import txlog.testing.{Fault, FaultInjectingFileSystem => Faulty}

/** A commit builds on what its transaction already read, through the table context its log holds:
  * the conflict check takes the read snapshot's metadata, and the post-commit checkpoint the
  * snapshot the commit produced (the read one updated with the new commit: on a cached snapshot
  * only the new commits are read), instead of opening the table again. Shown on `faulty://` by
  * failing every read of commit 0 once a cached snapshot has read the table: the code that opened
  * the table again failed there (the checkpoint reported as a problem, the conflict check as
  * LOG_READ_FAILED). delta-spark reads the result.
  */
class TableContextSuite extends SparkSuite {
  // The faulty:// file system has no conditional create; one writer at a time here.
  override def extraConf: Map[String, String] =
    Faulty.conf + ("spark.txlog.storage.singleWriter" -> "true")

  /** `n` appends of one row each (versions 0 to n - 1) by delta-spark, partitioned by `part`. */
  private def table(n: Int): Path = {
    val t = tempDir("table-context").resolve("t")
    (0 until n).foreach { i =>
      spark
        .range(i, i + 1)
        .selectExpr("id", s"'${if (i % 2 == 0) "a" else "b"}' AS part")
        .coalesce(1)
        .write
        .format("delta")
        .partitionBy("part")
        .mode("append")
        .save(t.toString)
    }
    t
  }

  private def adds(name: String, part: String) =
    TxnTestKit.adds(spark, Seq(s"part=$part/$name.parquet"), part)

  test("the post-commit checkpoint is of the snapshot the commit produced, not a new replay") {
    val t = table(9) // versions 0 to 8, no checkpoint (delta-spark's interval is 10)
    val log = DeltaLog.forTable(spark, s"${Faulty.Scheme}://$t")
    val cached = log.snapshot().cache()
    log.startTransaction().addFiles(adds("x9", "a")).commit("WRITE")
    val txn = log.startTransaction()
    assert(txn.readVersion === 9)
    Faulty.fail(f"${0}%020d.json", Fault.Io)
    val r =
      try txn.addFiles(adds("x10", "a")).commit("WRITE")
      finally Faulty.reset()
    assert(r.version === 10)
    assert(r.postCommitProblems.isEmpty, r.postCommitProblems)
    assert(r.checkpoint.map(_.version) === Some(10L))
    RefLog.clearCache()
    val ref = RefLog.forTable(spark, t.toString).update()
    assert(ref.logSegment.checkpointProvider.version === 10L)
    assert(ref.allFiles.count() === 11)
    cached.unpersist()
  }

  test("the conflict check takes the read snapshot's metadata, not a replay of the read version") {
    val t = table(2)
    val log = DeltaLog.forTable(spark, s"${Faulty.Scheme}://$t")
    val cached = log.snapshot().cache()
    val txn = log.startTransaction()
    txn.readFiles(col("partitionValues_parsed.part") === "a")
    // Another writer commits version 2 in the other partition (having read the table, so its
    // adds are checked against the predicates read, typed by the read metadata): no conflict.
    val other = DeltaLog.forTable(spark, t.toString).startTransaction()
    other.readWholeTable()
    other.addFiles(adds("w", "b")).commit()
    Faulty.fail(f"${0}%020d.json", Fault.Io)
    val r =
      try txn.addFiles(adds("mine", "a")).commit("WRITE")
      finally Faulty.reset()
    assert((r.version, r.attempts) === (3L, 2))
    RefLog.clearCache()
    val ref = RefLog.forTable(spark, t.toString).update()
    assert(ref.version === 3)
    assert(ref.allFiles.collect().map(_.path).toSet.contains("part=a/mine.parquet"))
    cached.unpersist()
  }
}
