package txlog.cleanup

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._
import scala.util.Success

import org.apache.spark.sql.Row

import txlog.{DeltaLog, Fixtures, Oracle, SnapshotView, SparkSuite, TxlogException}
import txlog.protocol.{FileNames, TableConfiguration}

/** DeltaLog.cleanup on tables whose commit times are set days apart: exactly the spec's files go,
  * and every version from the cutoff commit on reads as before.
  */
class MetadataCleanupSuite extends SparkSuite {
  private val Day = CleanupPlanner.DayMillis

  /** Midnight UTC today: file times are set relative to it, so cutoffs are unambiguous. */
  private val today = CleanupPlanner.midnightUtc(System.currentTimeMillis())

  private def logDir(t: Path): Path = t.resolve("_delta_log")

  private def files(dir: Path): Set[String] =
    if (!Files.isDirectory(dir)) Set.empty
    else
      Files
        .list(dir)
        .iterator()
        .asScala
        .filter(Files.isRegularFile(_))
        .map(_.getFileName.toString)
        .filterNot(_.startsWith("."))
        .toSet

  /** Sets commit v's file time to `daysAgo(v)` days before today's midnight, plus one hour. */
  private def ageCommits(t: Path, daysAgo: Long => Long): Unit =
    files(logDir(t)).filter(_.matches("""\d{20}\.json""")).foreach { n =>
      val v = n.take(20).toLong
      assert(logDir(t).resolve(n).toFile.setLastModified(today - daysAgo(v) * Day + 3600000L))
    }

  /** A table of `commits` appends made by delta-spark with a checkpoint every `interval`. */
  private def makeTable(commits: Int, interval: Int): Path = {
    val t = tempDir().resolve("t")
    (0 until commits).foreach { i =>
      val w = spark.range(i * 10, i * 10 + 10).write.format("delta").mode("append")
      (if (i == 0) w.option("delta.checkpointInterval", interval.toString) else w)
        .save(t.toString)
    }
    t
  }

  private def views(path: String, versions: Seq[Long]): Map[Long, SnapshotView] =
    versions.zip(Oracle.references(spark, path, versions).map(_.get)).toMap

  private def paths(rows: Seq[Row]): Seq[String] =
    rows.map(r => new org.apache.hadoop.fs.Path(r.getAs[String]("path")).getName)

  test("deletes exactly what is older than the checkpoint covering the cutoff commit") {
    // Commits 0..7, 2 days apart (commit 0 is 21 days old), checkpoints at 2, 4 and 6.
    val t = makeTable(8, 2)
    val path = t.toString
    val log = DeltaLog.forTable(spark, path)
    log.compact(1, 3)
    log.compact(4, 5)
    log.compact(5, 7)
    ageCommits(t, v => 21 - 2 * v)
    val all = files(logDir(t))
    assert(all.exists(_.endsWith(".crc")), "delta-spark wrote no version checksums")
    val before = views(path, 4L to 7L)

    // Cutoff = midnight 10 days ago: the cutoff commit is 5 (11 days old), and the newest
    // checkpoint at or below it is 4.
    val dry = log.cleanup(Some("10 days"), force = true).collect().toSeq
    assert(files(logDir(t)) === all)
    assert(dry.forall(!_.getAs[Boolean]("deleted")))
    val expected = all.filter(_.head.isDigit).filter { n =>
      val v = n.take(20).toLong
      if (n.endsWith(".compacted.json")) v <= 4 else v < 4
    }
    assert(paths(dry).toSet === expected)
    assert(expected.exists(_.contains(".checkpoint.")) && expected.exists(_.endsWith(".crc")))
    assert(expected.count(_.endsWith(".compacted.json")) === 2)
    val versions = dry.map(_.getAs[Long]("version"))
    assert(versions === versions.sorted, "not oldest first")

    val done = log.cleanup(Some("10 days"), dryRun = false, force = true).collect().toSeq
    assert(paths(done) === paths(dry))
    assert(done.forall(_.getAs[Boolean]("deleted")))
    assert(files(logDir(t)) === all -- expected)
    assert(
      expected.forall(n => !Files.exists(logDir(t).resolve(s".$n.crc"))),
      "Hadoop checksum side files of deleted files are left behind"
    )
    assert(files(logDir(t)).contains("_last_checkpoint"))
    Oracle.bothAt(spark, path, 4L to 7L).foreach {
      case (v, Success(ours), Success(ref)) =>
        assert(ours === before(v), s"txlog at v$v")
        assert(ref === before(v), s"delta-spark at v$v")
      case (v, ours, ref) => fail(s"v$v after cleanup: ${(ours, ref)}")
    }
    assert(intercept[TxlogException](log.snapshot(3L)).errorClass === "VERSION_NOT_FOUND")
    // Nothing left to delete: running it again finds no candidates.
    assert(log.cleanup(Some("10 days"), dryRun = false, force = true).count() === 0)
  }

  test("the default retention is the table's delta.logRetentionDuration") {
    val t = makeTable(5, 2)
    ageCommits(t, v => 40 - 2 * v) // commit 4 is 32 days old: older than the default 30 days
    val log = DeltaLog.forTable(spark, t.toString)
    val dry = log.cleanup().collect().toSeq
    assert(paths(dry).exists(_ == "00000000000000000003.json"))
    spark.sql(
      s"ALTER TABLE delta.`$t` SET TBLPROPERTIES " +
        "('delta.logRetentionDuration' = 'interval 100 days')"
    )
    ageCommits(t, v => 40 - 2 * v)
    val kept = log.cleanup().collect().toSeq
    assert(kept.map(_.getAs[String]("kind")) === Seq("none"))
  }

  test("no checkpoint at or below the cutoff commit: nothing is deleted, and the row says why") {
    val t = makeTable(5, 100)
    ageCommits(t, v => 20 - 2 * v)
    val all = files(logDir(t))
    val rows = DeltaLog
      .forTable(spark, t.toString)
      .cleanup(Some("1 day"), dryRun = false, force = true)
      .collect()
      .toSeq
    assert(rows.size === 1 && rows.head.getAs[String]("kind") === "none")
    assert(rows.head.getAs[String]("reason").contains("checkpoint"))
    assert(!rows.head.getAs[Boolean]("deleted"))
    assert(files(logDir(t)) === all)
    // All commits newer than the cutoff: nothing either.
    val young = DeltaLog
      .forTable(spark, t.toString)
      .cleanup(Some("30 days"), dryRun = false)
      .collect()
      .toSeq
    assert(young.map(_.getAs[String]("kind")) === Seq("none"))
    assert(files(logDir(t)) === all)
  }

  test("sidecars: referenced and recent ones are kept, old unreferenced ones deleted") {
    assume(Fixtures.available, Fixtures.skipMessage)
    // Checkpoints 2 (parquet, two sidecars) and 4 (json, one sidecar).
    val t = Fixtures.copy("kernel/kernel-pagination-v2-checkpoint-parquet", tempDir())
    val path = t.toString
    ageCommits(t, v => 10 - v)
    val sidecarDir = logDir(t).resolve("_sidecars")
    val original = files(sidecarDir)
    val ofFour = original.filter(_.startsWith("00000000000000000004"))
    assert(ofFour.size === 1 && original.size === 3)
    val stray = sidecarDir.resolve("stray-old.parquet")
    val fresh = sidecarDir.resolve("stray-fresh.parquet")
    Files.write(stray, Array[Byte](1, 2, 3))
    Files.write(fresh, Array[Byte](1, 2, 3))
    // Every sidecar except `fresh` is three days old; `fresh` is from today.
    (original + stray.getFileName.toString).foreach(n =>
      assert(sidecarDir.resolve(n).toFile.setLastModified(today - 3 * Day))
    )
    assert(fresh.toFile.setLastModified(today + 1000))
    val before = views(path, Seq(4L))

    // Cutoff = midnight 5 days ago: cutoff commit 4 (6 days old), which is checkpointed.
    val rows = DeltaLog
      .forTable(spark, path)
      .cleanup(Some("5 days"), dryRun = false, force = true)
      .collect()
      .toSeq
    val deletedSidecars = rows.filter(_.getAs[String]("kind") == "sidecar")
    assert(paths(deletedSidecars).toSet === (original -- ofFour) + "stray-old.parquet")
    assert(files(sidecarDir) === ofFour + "stray-fresh.parquet")
    assert(!files(logDir(t)).exists(_.startsWith("00000000000000000002")))
    Oracle.both(spark, path, Some(4L)) match {
      case (Success(ours), Success(ref)) =>
        assert(ours === before(4L))
        assert(ref === before(4L))
      case other => fail(s"v4 after cleanup: $other")
    }
  }

  test("a table with a writer feature txlog does not know is refused") {
    val t = makeTable(3, 2)
    Files.write(
      logDir(t).resolve(FileNames.commitName(3)),
      Seq(
        """{"protocol":{"minReaderVersion":1,"minWriterVersion":7,""" +
          """"writerFeatures":["someFutureFeature"]}}"""
      ).asJava,
      UTF_8
    )
    ageCommits(t, v => 20 - 2 * v)
    val all = files(logDir(t))
    val e = intercept[TxlogException](
      DeltaLog.forTable(spark, t.toString).cleanup(Some("1 day"), dryRun = false, force = true)
    )
    assert(e.errorClass === "UNSUPPORTED_WRITER_FEATURES")
    assert(files(logDir(t)) === all)
  }

  test("a retention that is not a duration is INVALID_ARGUMENT, each time it is given") {
    val t = makeTable(1, 2)
    for (_ <- 1 to 2) { // a text that did not parse is not kept as parsed
      val e = intercept[TxlogException](DeltaLog.forTable(spark, t.toString).cleanup(Some("soon")))
      assert(e.errorClass === "INVALID_ARGUMENT" && e.getMessage.contains("retention"))
    }
  }

  test("durations parsed again give the spec's milliseconds") {
    for (_ <- 1 to 2) {
      assert(TableConfiguration.durationMillis("interval 1 week") === 7L * 24 * 3600 * 1000)
      assert(TableConfiguration.durationMillis("2 days") === 2L * 24 * 3600 * 1000)
      intercept[TxlogException](TableConfiguration.durationMillis("interval 1 month"))
    }
  }

  test("leftovers of dead writers (temporary files, staging directories) older than a day go") {
    // Nothing of the log is old enough here, so the log files are blocked: leftovers still go.
    val t = makeTable(2, 100)
    val log = logDir(t)
    val uuid = "0f0e0d0c-0b0a-4908-8706-050403020100"
    val oldTmp = log.resolve(s".00000000000000000002.json.$uuid.tmp")
    val oldStaging = log.resolve(s".txlog-staging-$uuid")
    // A large commit's staged lines and staged inputs.
    val oldCommit = log.resolve(s".txlog-commit-$uuid")
    val oldInput = log.resolve(s".txlog-input-$uuid")
    val foreign = log.resolve(".some-other-tool.tmp")
    Files.writeString(oldTmp, "{}")
    Seq(oldStaging, oldCommit, oldInput).foreach { d =>
      Files.createDirectories(d.resolve("parts"))
      Files.writeString(d.resolve("parts").resolve("part-0.parquet"), "x")
    }
    Files.writeString(foreign, "x")
    val uuidNew = "1f1e1d1c-1b1a-4918-9716-151413121110"
    val fresh = log.resolve(s"._last_checkpoint.$uuidNew.tmp")
    Files.writeString(fresh, "x")
    val old = today - 3 * Day
    Seq(oldTmp, oldStaging, oldCommit, oldInput, foreign).foreach { p =>
      assert(p.toFile.setLastModified(old))
    }

    val dry =
      DeltaLog.forTable(spark, t.toString).cleanup(Some("1 day"), force = true).collect().toSeq
    assert(dry.map(_.getAs[String]("kind")).toSet === Set("none", "leftover"))
    val leftovers = dry.filter(_.getAs[String]("kind") == "leftover")
    val dead = Set(oldTmp, oldStaging, oldCommit, oldInput)
    assert(paths(leftovers).toSet === dead.map(_.getFileName.toString))
    assert(dead.forall(Files.exists(_)))

    val done =
      DeltaLog.forTable(spark, t.toString).cleanup(Some("1 day"), dryRun = false, force = true)
    assert(done.where("kind = 'leftover' AND deleted").count() === 4)
    assert(!dead.exists(Files.exists(_)))
    assert(Files.exists(fresh) && Files.exists(foreign), "a live writer's file, another tool's")
    assert(Files.exists(log.resolve("00000000000000000001.json")))
  }
}
