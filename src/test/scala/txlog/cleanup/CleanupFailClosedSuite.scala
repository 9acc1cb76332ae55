package txlog.cleanup

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.Row

import txlog.{DeltaLog, Fixtures, SparkSuite, TxlogException}
import txlog.testing.{Fault, FaultInjectingFileSystem => Faulty}

/** Metadata cleanup fails closed: a retention below the table's needs force;
  * `delta.enableExpiredLogCleanup=false` keeps the log; a cutoff checkpoint that cannot be read
  * whole (a truncated part, a missing sidecar) keeps everything older; a delete that fails midway
  * stops the log files' deletes after it and every row says what happened.
  */
class CleanupFailClosedSuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn
  override def extraConf: Map[String, String] = Faulty.conf
  private val Day = CleanupPlanner.DayMillis
  private val today = CleanupPlanner.midnightUtc(System.currentTimeMillis())

  private def logDir(t: Path): Path = t.resolve("_delta_log")

  private def logFiles(t: Path): Set[String] =
    Files.list(logDir(t)).iterator().asScala.map(_.getFileName.toString).toSet

  /** Commit v's file time set to `daysAgo(v)` days before today's midnight, plus an hour. */
  private def ageCommits(t: Path, daysAgo: Long => Long): Path = {
    logFiles(t).filter(_.matches("""\d{20}\.json""")).foreach { n =>
      val v = n.take(20).toLong
      assert(logDir(t).resolve(n).toFile.setLastModified(today - daysAgo(v) * Day + 3600000L))
    }
    t
  }

  /** Eight appends by delta-spark, a checkpoint every 2 commits (at 2, 4 and 6), commit v 21 - 2v
    * days old: with a retention of 10 days the cutoff commit is 5 and the cutoff checkpoint 4
    * (readers of the latest version start from 6).
    */
  private def table(): Path = {
    val t = tempDir().resolve("t")
    (0 until 8).foreach { i =>
      val w = spark.range(i * 10, i * 10 + 10).write.format("delta").mode("append")
      (if (i == 0) w.option("delta.checkpointInterval", "2") else w).save(t.toString)
    }
    ageCommits(t, v => 21 - 2 * v)
  }

  private def none(rows: Seq[Row]): String = {
    assert(rows.map(_.getAs[String]("kind")) === Seq("none"), rows)
    rows.head.getAs[String]("reason")
  }

  test("a retention below the table's is CLEANUP_RETENTION_TOO_SHORT unless forced") {
    val t = table()
    val before = logFiles(t)
    val log = DeltaLog.forTable(spark, t.toString)
    Seq(true, false).foreach { dryRun =>
      val e = intercept[TxlogException](log.cleanup(Some("10 days"), dryRun))
      assert(e.errorClass === "CLEANUP_RETENTION_TOO_SHORT" && e.getMessage.contains("30 days"))
    }
    assert(logFiles(t) === before)
    val forced = log.cleanup(Some("10 days"), force = true).collect().toSeq
    assert(forced.map(_.getAs[Long]("version")).toSet === Set(0L, 1L, 2L, 3L))
  }

  inTurn("delta.enableExpiredLogCleanup=false keeps every log file") {
    val t = table()
    spark.sql(
      s"ALTER TABLE delta.`$t` SET TBLPROPERTIES ('delta.enableExpiredLogCleanup' = 'false')"
    )
    val before = logFiles(t)
    val rows = DeltaLog
      .forTable(spark, t.toString)
      .cleanup(Some("10 days"), dryRun = false, force = true)
      .collect()
      .toSeq
    assert(none(rows).contains("delta.enableExpiredLogCleanup is false"))
    assert(logFiles(t) === before)
  }

  private def blockedByCutoff(t: Path, cutoff: Long, retention: String): Unit = {
    val before = logFiles(t)
    val rows = DeltaLog
      .forTable(spark, t.toString)
      .cleanup(Some(retention), dryRun = false, force = true)
      .collect()
      .toSeq
    assert(none(rows).contains(s"the cutoff checkpoint at version $cutoff cannot be read"))
    assert(logFiles(t) === before)
  }

  inTurn("a cutoff checkpoint that cannot be read keeps everything older: classic, truncated") {
    val t = table()
    val cp = logDir(t).resolve(f"${4}%020d.checkpoint.parquet")
    Files.write(cp, Files.readAllBytes(cp).take(100))
    blockedByCutoff(t, 4L, "10 days")
  }

  test("a cutoff checkpoint that cannot be read keeps everything older: multi-part, V2") {
    assume(Fixtures.available, Fixtures.skipMessage)
    // Multi-part checkpoint 1 (commits 0 and 1, 10 and 9 days old), then a fresh commit 2 and a
    // classic checkpoint of it, which readers of the latest version start from.
    val multi = Fixtures.copy("golden/multi-part-checkpoint", tempDir())
    spark.range(100, 110).write.format("delta").mode("append").save(multi.toString)
    DeltaLog.forTable(spark, multi.toString).checkpoint()
    Seq(0L -> 10L, 1L -> 9L).foreach { case (v, days) =>
      assert(logDir(multi).resolve(f"$v%020d.json").toFile.setLastModified(today - days * Day))
    }
    val part =
      logDir(multi).resolve("00000000000000000001.checkpoint.0000000002.0000000002.parquet")
    Files.write(part, Files.readAllBytes(part).take(100))
    blockedByCutoff(multi, 1L, "0 days")
    // V2 checkpoints at 2 and 4, commit v 20 - 2v days old: 13 days puts the cutoff at 2.
    val v2 = ageCommits(
      Fixtures.copy("kernel/kernel-pagination-v2-checkpoint-parquet", tempDir()),
      v => 20 - 2 * v
    )
    val sidecar = Files
      .list(logDir(v2).resolve("_sidecars"))
      .iterator()
      .asScala
      .find(_.getFileName.toString.startsWith(f"${2}%020d."))
      .get
    Files.delete(sidecar)
    blockedByCutoff(v2, 2L, "13 days")
  }

  inTurn("a delete that fails midway: the log files after it stay, every row says why") {
    val t = table()
    val live = DeltaLog.forTable(spark, t.toString).snapshot().numFiles
    val failing = f"${1}%020d.json"
    Faulty.fail(failing, Fault.AccessDenied)
    val rows =
      try
        DeltaLog
          .forTable(spark, s"${Faulty.Scheme}://$t")
          .cleanup(Some("10 days"), dryRun = false, force = true)
          .collect()
          .toSeq
      finally Faulty.reset()
    val byName = rows.map(r =>
      new org.apache.hadoop.fs.Path(r.getAs[String]("path")).getName ->
        (r.getAs[Boolean]("deleted"), r.getAs[String]("reason"))
    )
    val deleted = byName.collect { case (n, (true, _)) => n }.toSet
    val kept = byName.collect { case (n, (false, why)) => n -> why }.toMap
    // Oldest first: version 0, then version 1's checksum; its commit fails, nothing after goes.
    assert(deleted.contains(f"${0}%020d.json") && !deleted.contains(failing), deleted)
    assert(deleted.forall(n => n.take(20).toLong <= 1L), deleted)
    assert(kept(failing).contains("AccessDeniedException"), kept(failing))
    assert((kept - failing).values.forall(_.contains("failed before it")), kept)
    assert(kept.keySet.exists(_.startsWith(f"${3}%020d.")), kept)
    assert(deleted.forall(n => !Files.exists(logDir(t).resolve(n))))
    assert(kept.keys.forall(n => Files.exists(logDir(t).resolve(n))))
    assert(DeltaLog.forTable(spark, t.toString).snapshot().numFiles === live)
  }
}
