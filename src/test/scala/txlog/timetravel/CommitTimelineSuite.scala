package txlog.timetravel

import java.io.File
import java.sql.Timestamp
import java.util.TimeZone

import scala.util.{Failure, Success, Try}

import org.apache.spark.sql.delta.RefVersions
import org.apache.spark.sql.delta.{DeltaLog => RefLog}

import txlog.{DeltaLog, Fixtures, SparkSuite, TxlogException}
import txlog.protocol.FileNames

/** One commit timeline: snapshot timestamps, history timestamps and timestamp time travel agree
  * with delta-spark's for every version, with in-commit timestamps enabled at creation, enabled
  * mid-history, and after early commits were cleaned up; timestamp strings are read in the session
  * time zone.
  */
class CommitTimelineSuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn

  private def logDir(table: String) = new File(table, "_delta_log")

  private def commitFile(table: String, v: Long) = new File(logDir(table), FileNames.commitName(v))

  private def append(table: String, rows: Int): Unit =
    spark.range(rows).write.format("delta").mode("append").save(table)

  /** Sets commit file times far in the future: only in-commit timestamps give delta-spark's. */
  private def farFutureFileTimes(table: String, versions: Seq[Long]): Unit =
    versions.foreach(v => assert(commitFile(table, v).setLastModified(4000000000000L + v)))

  /** Deletes the commits, checkpoints and checksums before `before`, as metadata cleanup does when
    * a checkpoint at `before` covers them (and, with `alsoCommitOf`, that commit too).
    */
  private def cleanUp(table: String, before: Long, alsoCommitOf: Option[Long] = None): Unit = {
    logDir(table).listFiles().foreach { f =>
      val v = Try(f.getName.takeWhile(_ != '.').toLong).toOption
      if (v.exists(_ < before) && f.getName.endsWith(".json")) assert(f.delete())
      else if (v.exists(_ < before)) f.delete()
    }
    alsoCommitOf.foreach(v => assert(commitFile(table, v).delete()))
  }

  /** Sets strictly increasing commit file times, a second apart, so that the made-monotonic file
    * times are the files' own (delta-spark's snapshot timestamp is the last commit's raw file time;
    * txlog's is made monotonic, so that it agrees with history and time travel).
    */
  private def increasingFileTimes(table: String): Unit = {
    val t0 = 1700000000000L
    logDir(table).listFiles().filter(_.getName.matches("\\d{20}\\.json")).foreach { f =>
      assert(f.setLastModified(t0 + 1000L * f.getName.take(20).toLong))
    }
  }

  private def ictFromCreation(checkpointInterval: Int = 100): String = {
    val t = tempDir().resolve("ict").toString
    spark.sql(
      s"CREATE TABLE delta.`$t` (id LONG) USING delta TBLPROPERTIES " +
        s"('delta.enableInCommitTimestamps' = 'true', " +
        s"'delta.checkpointInterval' = '$checkpointInterval')"
    )
    (1 to 4).foreach(append(t, _))
    farFutureFileTimes(t, 0L to 4L)
    t
  }

  private def ictEnabledLater(checkpointInterval: Int = 100): String = {
    val t = tempDir().resolve("ict-later").toString
    spark.sql(
      s"CREATE TABLE delta.`$t` (id LONG) USING delta TBLPROPERTIES " +
        s"('delta.checkpointInterval' = '$checkpointInterval')"
    )
    (1 to 2).foreach(append(t, _))
    spark.sql(
      s"ALTER TABLE delta.`$t` SET TBLPROPERTIES ('delta.enableInCommitTimestamps' = 'true')"
    )
    (1 to 3).foreach(append(t, _))
    // v0-v2 keep their file times; v3 (enablement) on use in-commit timestamps.
    farFutureFileTimes(t, 3L to 6L)
    t
  }

  /** Snapshot timestamps, history and time travel at every version agree with delta-spark. */
  private def assertTimelineAgrees(table: String): Unit = {
    RefLog.clearCache()
    val ref = RefLog.forTable(spark, table)
    val log = DeltaLog.forTable(spark, table)
    val listing = txlog.log.LogListing.list(log.table)
    val disagree = (listing.earliestListed to listing.latestVersion).flatMap { v =>
      val theirs = Try(RefVersions.snapshotAt(ref, v).timestamp)
      val ours = Try(log.snapshot(v).timestamp)
      (ours, theirs) match {
        case (Success(a), Success(b)) if a == b       => None
        case (Failure(_: TxlogException), Failure(_)) => None
        // delta-spark cannot load a version whose commit was cleaned up (only its checkpoint is
        // left); txlog reconstructs it and dates it by the checkpoint file.
        case (Success(a), Failure(e))
            if !commitFile(table, v).exists() && e.getMessage.contains("delta files") =>
          val cp = new File(logDir(table), f"$v%020d.checkpoint.parquet")
          if (a == cp.lastModified()) None else Some(s"v$v: $a, checkpoint at ${cp.lastModified}")
        case _ => Some(s"snapshot timestamp of v$v: txlog $ours, delta-spark $theirs")
      }
    }
    assert(disagree.isEmpty, disagree.mkString("\n"))
    val refHistory = ref.history.getHistory(None).map(h => h.getVersion -> h.timestamp.getTime)
    val history = log
      .history()
      .select("version", "timestamp")
      .collect()
      .map(r => r.getLong(0) -> r.getTimestamp(1).getTime)
      .toSeq
    assert(history === refHistory)
    val probes = refHistory.flatMap { case (_, t) => Seq(t - 1, t, t + 1) }.distinct.sorted
    probes.foreach { t =>
      val ts = new Timestamp(t)
      val theirs = Try(RefVersions.versionAtTime(ref, ts))
      val ours = Try(log.snapshotAsOf(ts).version)
      (ours, theirs) match {
        case (Success(a), Success(b))                 => assert(a === b, s"at $ts ($t)")
        case (Failure(_: TxlogException), Failure(_)) =>
        case _ => fail(s"at $ts ($t): txlog $ours, delta-spark $theirs")
      }
    }
  }

  test("in-commit timestamps from creation agree with delta-spark at every version") {
    val t = ictFromCreation()
    assertTimelineAgrees(t)
    assert(DeltaLog.forTable(spark, t).snapshot().timestamp < 4000000000000L)
  }

  test("in-commit timestamps enabled mid-history agree with delta-spark at every version") {
    val t = ictEnabledLater()
    assertTimelineAgrees(t)
    val log = DeltaLog.forTable(spark, t)
    assert(log.snapshot(2L).timestamp < 4000000000000L)
    assert(log.snapshot(3L).timestamp < 4000000000000L)
  }

  inTurn("early commits cleaned up, in-commit timestamps enabled mid-history: as delta-spark") {
    val t = ictEnabledLater(checkpointInterval = 2)
    assert(new File(logDir(t), f"${4L}%020d.checkpoint.parquet").exists())
    cleanUp(t, before = 4L)
    assertTimelineAgrees(t)
  }

  inTurn("the checkpoint version's commit cleaned up too: as delta-spark") {
    val t = ictEnabledLater(checkpointInterval = 2)
    cleanUp(t, before = 4L, alsoCommitOf = Some(4L))
    assertTimelineAgrees(t)
  }

  test("early commits of a fixture cleaned up (no in-commit timestamps): as delta-spark") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/basic-with-inserts-deletes-checkpoint", tempDir()).toString
    increasingFileTimes(t)
    cleanUp(t, before = 10L)
    assertTimelineAgrees(t)
    val only = Fixtures.copy("golden/basic-with-inserts-deletes-checkpoint", tempDir()).toString
    increasingFileTimes(only)
    cleanUp(only, before = 10L, alsoCommitOf = Some(10L))
    assertTimelineAgrees(only)
  }

  test("a missing in-commit timestamp is MALFORMED_LOG_FILE naming the commit") {
    val t = ictFromCreation()
    val f = commitFile(t, 2L)
    val lines = scala.io.Source.fromFile(f).getLines().toList
    val stripped = lines.map(_.replaceAll(""""inCommitTimestamp":\d+,""", ""))
    assert(stripped != lines)
    java.nio.file.Files.write(f.toPath, stripped.mkString("\n").getBytes("UTF-8"))
    val log = DeltaLog.forTable(spark, t)
    Seq(() => log.snapshot(2L).timestamp, () => log.history().collect()).foreach { call =>
      val e = intercept[TxlogException](call())
      assert(e.errorClass === "MALFORMED_LOG_FILE")
      assert(e.getMessage.contains(FileNames.commitName(2L)), e.getMessage)
    }
  }

  test("timestamp strings are read in the session time zone, as delta-spark reads them") {
    val zone = Seq("America/Los_Angeles", "Asia/Tokyo")
      .find(z => TimeZone.getTimeZone(z).getRawOffset != TimeZone.getDefault.getRawOffset)
      .get
    val t = tempDir().resolve("tz").toString
    // delta-spark refuses to time travel further back than the retention durations.
    spark.sql(
      s"CREATE TABLE delta.`$t` (id LONG) USING delta TBLPROPERTIES " +
        "('delta.deletedFileRetentionDuration' = 'interval 36500 days', " +
        "'delta.logRetentionDuration' = 'interval 36500 days')"
    )
    (1 to 3).foreach(_ => append(t, 1)) // version v has v rows
    val hour = 3600000L
    val t0 = java.time.Instant.parse("2024-01-01T00:00:00Z").toEpochMilli
    Seq(0L, 5L, 10L, 20L).zipWithIndex.foreach { case (h, v) =>
      assert(commitFile(t, v.toLong).setLastModified(t0 + h * hour))
    }
    val before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", zone)
    try {
      val log = DeltaLog.forTable(spark, t)
      val strings = Seq("2024-01-01 01:00:00", "2024-01-01 03:30", "2024-01-01", "2024-01-01T07")
      strings.foreach { s =>
        RefLog.clearCache()
        val theirs = Try(
          spark.read.format("delta").option("timestampAsOf", s).load(t).count()
        )
        val ours = Try(log.snapshotAsOf(s).version)
        (ours, theirs) match {
          case (Success(a), Success(b))                 => assert(a === b, s)
          case (Failure(_: TxlogException), Failure(_)) =>
          case _ => fail(s"'$s': txlog $ours, delta-spark $theirs")
        }
      }
      // The first probe picks another version when read in the JVM's zone: the test tells them
      // apart.
      val inJvmZone = Try(log.snapshotAsOf(Timestamp.valueOf(strings.head)).version).toOption
      assert(inJvmZone != Try(log.snapshotAsOf(strings.head).version).toOption)
    } finally spark.conf.set("spark.sql.session.timeZone", before)
  }
}
