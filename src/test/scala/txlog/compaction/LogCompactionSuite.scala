package txlog.compaction

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}

import scala.jdk.CollectionConverters._
import scala.util.Success

import txlog.{DeltaLog, Fixtures, Oracle, SnapshotView, SparkSuite, TxlogException}
import txlog.log.{LogListing, LogSegment}
import txlog.protocol.CompactionFile
import txlog.protocol.FileNames

/** DeltaLog.compact: written compactions are used by readers and change no snapshot. */
class LogCompactionSuite extends SparkSuite {

  private def segment(path: String, version: Long): LogSegment =
    LogSegment.build(LogListing.list(DeltaLog.forTable(spark, path).table), Some(version))

  private def compactions(segment: LogSegment): Seq[(Long, Long)] =
    segment.deltas.collect { case c: CompactionFile => (c.start, c.version) }

  private def logFiles(t: Path): Set[String] =
    Files.list(t.resolve("_delta_log")).iterator().asScala.map(_.getFileName.toString).toSet

  private def removeCompactions(t: Path): Unit =
    logFiles(t)
      .filter(_.endsWith(".compacted.json"))
      .foreach(n => Files.delete(t.resolve("_delta_log").resolve(n)))

  private def error(body: => Any): TxlogException =
    intercept[TxlogException](body)

  /** (fixture, its latest version, ranges to compact). */
  private val cases = Seq(
    ("golden/snapshot-data2-deleted", Seq((0L, 4L), (1L, 3L), (2L, 4L), (0L, 1L))),
    ("golden/log-replay-dv-key-cases", Seq((0L, 3L), (1L, 2L), (1L, 3L))),
    ("golden/delete-re-add-same-file-different-transactions", Seq((0L, 3L), (1L, 2L))),
    ("golden/log-replay-latest-metadata-protocol", Seq((0L, 2L), (1L, 2L))),
    ("golden/basic-with-inserts-deletes-checkpoint", Seq((11L, 13L), (3L, 12L), (0L, 9L)))
  )

  /** Whether snapshots after each compaction are also asked of delta-spark; without, the file is
    * checked to hold the lines the driver's compaction of the same range writes.
    */
  protected def askReference: Boolean = true

  /** The ranges of `fixture` this suite compacts: every one here. */
  protected def compacted(fixture: String, ranges: Seq[(Long, Long)]): Seq[(Long, Long)] = ranges

  /** The lines of the compaction of `start` to `end` of a fresh copy of `fixture`, written with the
    * commits read on the driver (as [[LogCompactionSuite]] writes and checks them).
    */
  private def driverCompaction(fixture: String, start: Long, end: Long): Seq[String] = {
    val key = txlog.replay.LogLineReader.LocalReadMaxBytesConf
    val was = spark.conf.getOption(key)
    spark.conf.unset(key)
    try {
      val t = Fixtures.copy(fixture, tempDir())
      DeltaLog.forTable(spark, t.toString).compact(start, end)
      Files
        .readAllLines(t.resolve("_delta_log").resolve(FileNames.compactionName(start, end)))
        .asScala
        .toSeq
    } finally was.foreach(spark.conf.set(key, _))
  }

  cases.foreach { case (fixture, ranges) =>
    test(s"compactions agree with delta-spark and are used by txlog: $fixture") {
      assume(Fixtures.available, Fixtures.skipMessage)
      val t = Fixtures.copy(fixture, tempDir())
      val path = t.toString
      val log = DeltaLog.forTable(spark, path)
      val latest = log.snapshot().version
      val before: Map[Long, SnapshotView] =
        (0L to latest).map(v => v -> Oracle.txlog(spark, path, Some(v))).toMap
      compacted(fixture, ranges).foreach { case (start, end) =>
        removeCompactions(t)
        val file = log.compact(start, end)
        val name = f"$start%020d.$end%020d.compacted.json" // the spec's name
        assert(file.endsWith(name))
        assert(logFiles(t).contains(name))
        assert(!logFiles(t).exists(n => n.startsWith(".") && n.contains("staging")))
        (end to latest).foreach { v =>
          val s = segment(path, v)
          if (s.checkpointVersion < start) {
            assert(compactions(s) === Seq(start -> end), s"range $start-$end at v$v")
          }
        }
        if (askReference) Oracle.bothAt(spark, path, end to latest).foreach {
          case (v, Success(ours), Success(ref)) =>
            assert(ours === before(v), s"txlog at v$v after compacting $start-$end")
            assert(ours === ref, s"delta-spark at v$v after compacting $start-$end")
          case (v, ours, ref) => fail(s"v$v after compacting $start-$end: ${(ours, ref)}")
        }
        else {
          val written = Files.readAllLines(t.resolve("_delta_log").resolve(name)).asScala.toSeq
          assert(written === driverCompaction(fixture, start, end), s"range $start-$end")
          (end to latest).foreach { v =>
            assert(Oracle.txlog(spark, path, Some(v)) === before(v), s"v$v after $start-$end")
          }
        }
        (start until end).foreach { v =>
          assert(compactions(segment(path, v)).isEmpty, s"range $start-$end at v$v")
          assert(Oracle.txlog(spark, path, Some(v)) === before(v))
        }
      }
    }
  }

  test("compacting again is a no-op; a different file of that name is LOG_FILE_EXISTS") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/snapshot-data2-deleted", tempDir())
    val log = DeltaLog.forTable(spark, t.toString)
    val file = t
      .resolve("_delta_log")
      .resolve(
        "00000000000000000001.00000000000000000003.compacted.json"
      )
    log.compact(1, 3)
    val bytes = Files.readAllBytes(file)
    assert(
      new String(bytes, UTF_8).linesIterator.forall(l =>
        !l.contains("\"commitInfo\"") && l.startsWith("{")
      )
    )
    log.compact(1, 3)
    assert(Files.readAllBytes(file) === bytes)
    Files.write(file, "{\"txn\":{\"appId\":\"x\",\"version\":1}}\n".getBytes(UTF_8))
    assert(error(log.compact(1, 3)).errorClass === "LOG_FILE_EXISTS")
  }

  test("a removed domainMetadata is kept so it still cancels the older one") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/snapshot-data2-deleted", tempDir())
    val logDir = t.resolve("_delta_log")
    def commit(v: Int, lines: String*): Unit =
      Files.write(logDir.resolve(FileNames.commitName(v)), lines.asJava, UTF_8)
    commit(
      5,
      """{"domainMetadata":{"domain":"a","configuration":"1","removed":false}}""",
      """{"domainMetadata":{"domain":"b","configuration":"2","removed":false}}"""
    )
    commit(
      6,
      """{"domainMetadata":{"domain":"a","configuration":"1","removed":true}}""",
      """{"txn":{"appId":"app","version":3}}"""
    )
    commit(7, """{"txn":{"appId":"app","version":4}}""")
    val log = DeltaLog.forTable(spark, t.toString)
    log.compact(6, 7)
    val lines = Files
      .readAllLines(logDir.resolve("00000000000000000006.00000000000000000007.compacted.json"))
      .asScala
    assert(lines.count(_.contains("\"domainMetadata\"")) === 1)
    assert(lines.exists(l => l.contains("\"removed\":true")))
    assert(lines.filter(_.contains("\"txn\"")) === Seq("""{"txn":{"appId":"app","version":4}}"""))
    val s = log.snapshot()
    assert(compactions(s.segment) === Seq(6L -> 7L))
    assert(s.domainMetadata === Map("b" -> "2"))
    assert(s.setTransactions === Map("app" -> 4L))
  }

  test("a malformed commit in the range is MALFORMED_LOG_FILE and nothing is written") {
    assume(Fixtures.available, Fixtures.skipMessage)
    // Checkpoint 10 keeps the latest snapshot from reading the corrupt commit 5: only the
    // compaction reads it.
    val t = Fixtures.copy("golden/checkpoint", tempDir())
    val bad = t.resolve("_delta_log").resolve(FileNames.commitName(5))
    Files.write(bad, "{\"add\": {\"path\": \n".getBytes(UTF_8), StandardOpenOption.APPEND)
    val log = DeltaLog.forTable(spark, t.toString)
    assert(log.snapshot().version === 14)
    val before = logFiles(t)
    val e = error(log.compact(4, 6))
    assert(e.errorClass === "MALFORMED_LOG_FILE")
    assert(e.getMessage.contains("00000000000000000005.json"))
    assert(logFiles(t) === before)
  }

  test("invalid ranges are INVALID_ARGUMENT naming the versions") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/checkpoint", tempDir())
    val log = DeltaLog.forTable(spark, t.toString)
    val reversed = error(log.compact(5, 3))
    assert(reversed.errorClass === "INVALID_ARGUMENT" && reversed.getMessage.contains("5"))
    val late = error(log.compact(12, 20))
    assert(late.errorClass === "INVALID_ARGUMENT" && late.getMessage.contains("20"))
    assert(error(log.compact(-1, 2)).errorClass === "INVALID_ARGUMENT")
    Files.delete(t.resolve("_delta_log").resolve(FileNames.commitName(12)))
    val gap = error(log.compact(11, 13))
    assert(gap.errorClass === "INVALID_ARGUMENT" && gap.getMessage.contains("12"))
    assert(!logFiles(t).exists(_.endsWith(".compacted.json")))
  }

  test("a table with a writer feature txlog does not know is refused") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/snapshot-data2-deleted", tempDir())
    Files.write(
      t.resolve("_delta_log").resolve(FileNames.commitName(5)),
      Seq(
        """{"protocol":{"minReaderVersion":1,"minWriterVersion":7,""" +
          """"writerFeatures":["someFutureFeature"]}}"""
      ).asJava,
      UTF_8
    )
    val e = error(DeltaLog.forTable(spark, t.toString).compact(0, 2))
    assert(e.errorClass === "UNSUPPORTED_WRITER_FEATURES")
    assert(!logFiles(t).exists(_.endsWith(".compacted.json")))
  }
}

/** The same, with every commit read by tasks, as for ranges too large for the driver: each
  * compaction holds the very lines the driver's does (whose snapshots delta-spark is asked about in
  * [[LogCompactionSuite]]), and txlog's task-read snapshots are unchanged by it. Each of a
  * fixture's ranges costs a task-read replay of every version, so `make test` compacts a third of
  * them, which third rotating by day ([[txlog.testing.Breadth]]; every range at every run until the
  * suite took 190 s of a CI run, half until half took 117 s), and `make test-breadth` all.
  */
class DistributedLogCompactionSuite extends LogCompactionSuite {
  override protected def askReference: Boolean = false
  override protected def compacted(fixture: String, ranges: Seq[(Long, Long)]) =
    txlog.testing.Breadth.share(ranges, 3, fixture)(_ => false)
  override def extraConf: Map[String, String] =
    Map(txlog.replay.LogLineReader.LocalReadMaxBytesConf -> "0")
}
