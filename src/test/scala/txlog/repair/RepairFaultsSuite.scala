package txlog.repair

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._
import scala.util.Try

import txlog.{DeltaLog, SparkSuite, TxlogException}
import txlog.restore.RestoreTestKit
import txlog.testing.{Fault, FaultInjectingFileSystem => Faulty}

/** Repair when something goes wrong after its plan: the rewrite of a checkpoint it set aside fails
  * (storage), or another writer commits between the plan and repair's FSCK commit. delta-spark's
  * reading of the table is the oracle: the log is left as it was, or as the other writer left it.
  * The blind append runs every time; the other two take turns in `make test`
  * ([[txlog.testing.InTurn]]).
  */
class RepairFaultsSuite extends SparkSuite with RestoreTestKit with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn
  // The faulty:// file system has no conditional create; one writer at a time here.
  override def extraConf: Map[String, String] =
    Faulty.conf + ("spark.txlog.storage.singleWriter" -> "true")

  /** Five appends of 10 rows by delta-spark, checkpoints at versions 2 and 4. */
  private def table(name: String): Path = {
    val t = tempDir("repair-faults").resolve(name)
    (0 until 5).foreach { i =>
      val w = spark.range(i * 10, i * 10 + 10).coalesce(1).write.format("delta").mode("append")
      (if (i == 0) w.option("delta.checkpointInterval", "2") else w).save(t.toString)
    }
    t
  }

  /** The log's visible files (hidden staging names excluded) and their bytes. */
  private def logState(t: Path): Map[String, Seq[Byte]] =
    Files
      .list(t.resolve("_delta_log"))
      .iterator()
      .asScala
      .filter(f => Files.isRegularFile(f) && !f.getFileName.toString.startsWith("."))
      .map(f => f.getFileName.toString -> Files.readAllBytes(f).toSeq)
      .toMap

  inTurn("writing the replacement checkpoint fails: the old one is moved back, nothing changes") {
    val t = table("rewrite-fails")
    val cp4 = t.resolve("_delta_log").resolve(f"${4}%020d.checkpoint.parquet")
    val bytes = Files.readAllBytes(cp4)
    Files.write(cp4, bytes.take(bytes.length / 2)) // truncated: commits 0 to 4 rebuild it
    // Hadoop's checksum of the old bytes; faulty:// (a raw local file system) would not move it.
    Files.delete(cp4.resolveSibling(s".${cp4.getFileName}.crc"))
    val before = logState(t)
    val faulty = DeltaLog.forTable(spark, s"${Faulty.Scheme}://$t")
    Faulty.failMatching("create", """.*\.parquet""", Fault.Io)
    val failure =
      try Try(faulty.repair(dryRun = false, force = true)).failed.toOption
      finally Faulty.reset()
    // A storage failure, typed (retryable), not a corrupt table.
    failure match {
      case Some(e: TxlogException) =>
        assert(e.errorClass === "LOG_WRITE_FAILED", e)
        assert(e.getMessage.contains("injected create failure"), e)
      case other => fail(s"the repair did not fail with LOG_WRITE_FAILED: $other")
    }
    assert(logState(t) === before, "the log changed")
    val aside = t.resolve(SetAside.DirName)
    val leftAside = if (Files.exists(aside)) Files.walk(aside).iterator().asScala.toSeq else Nil
    assert(leftAside.filter(Files.isRegularFile(_)) === Nil)

    // Run again without the fault: the checkpoint is rebuilt and delta-spark reads the table.
    val r = faulty.repair(dryRun = false)
    try assert(r.numCheckpointsRewritten === 1 && r.numFilesRemoved === 0)
    finally r.unpersist()
    assert(refView(t).live.size === 5 && rows(t).size === 50)
  }

  /** Deletes one data file of `t`; returns its name. */
  private def loseAFile(t: Path): String = {
    val f = Files.list(t).iterator().asScala.find(_.toString.endsWith(".parquet")).get
    Files.delete(f)
    f.getFileName.toString
  }

  test("a blind append between repair's plan and its commit: both land") {
    val t = table("concurrent-append")
    val lost = loseAFile(t)
    val log = DeltaLog.forTable(spark, t.toString)
    val r = log.repairWith(
      Repair.Options(dryRun = false, force = true),
      step =>
        if (step == "commit") {
          spark.range(100, 110).coalesce(1).write.format("delta").mode("append").save(t.toString)
        }
    )
    try assert(r.commitVersion === Some(6L) && r.numFilesRemoved === 1)
    finally r.unpersist()
    val after = refView(t)
    assert(after.version === 6L)
    assert(!after.live.exists(_._1.endsWith(lost)))
    assert(after.live.size === 5 && rows(t).size === 50) // 4 of the first files, the append's
  }

  inTurn("another writer removes the lost file first: repair's commit is a typed conflict") {
    val t = table("concurrent-remove")
    val lost = loseAFile(t)
    val log = DeltaLog.forTable(spark, t.toString)
    val other = DeltaLog.forTable(spark, t.toString)
    val e = intercept[TxlogException] {
      log.repairWith(
        Repair.Options(dryRun = false, force = true),
        step =>
          if (step == "commit") {
            val txn = other.startTransaction()
            txn.removeFiles(txn.readFiles().where(s"path LIKE '%$lost'"))
            txn.commit("DELETE")
          }
      )
    }
    assert(e.errorClass === "CONCURRENT_DELETE_DELETE", e)
    val after = refView(t)
    assert(after.version === 5L, "repair committed after the conflict")
    assert(after.live.size === 4 && !after.live.exists(_._1.endsWith(lost)))
  }
}
