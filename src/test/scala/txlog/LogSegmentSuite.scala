package txlog

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import txlog.log.{CompactionFile, FileNames, LogListing, LogSegment}

/** Which files a version is replayed from: checkpoints, commits, log compactions. */
class LogSegmentSuite extends SparkSuite {

  private def segment(path: String, version: Option[Long] = None): LogSegment = {
    val l = LogListing.list(DeltaLog.forTable(spark, path).table)
    LogSegment.build(l, version)
  }

  test("the newest checkpoint at or below the version, then the commits after it") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val s = segment(Fixtures.path("golden/checkpoint"))
    assert(s.checkpointVersion === 10 && s.deltas.map(_.version) === (11L to 14L))
    val old = segment(Fixtures.path("golden/checkpoint"), Some(9))
    assert(old.checkpoint.isEmpty && old.deltas.map(_.version) === (0L to 9L))
    val v2 = segment(Fixtures.path("golden/v2-checkpoint-json"))
    assert(v2.checkpoint.get.isJson && v2.checkpointVersion === 2)
  }

  test("a log compaction replaces the commits it covers, and gives the same snapshot") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/checkpoint", tempDir())
    val expected = Oracle.txlog(spark, t.toString, None)
    // Commits 11 to 13 each add one file; their compaction is their actions, reconciled.
    val logDir = t.resolve("_delta_log")
    val actions = (11 to 13).flatMap { v =>
      Files
        .readAllLines(logDir.resolve(FileNames.commitName(v)), UTF_8)
        .asScala
        .filterNot(_.startsWith("{\"commitInfo\""))
    }
    Files.write(
      logDir.resolve(s"${FileNames.padded(11)}.${FileNames.padded(13)}.compacted.json"),
      actions.asJava,
      UTF_8
    )
    val s = segment(t.toString)
    assert(
      s.deltas.map(_.getClass.getSimpleName) ===
        Seq("CompactionFile", "CommitFile")
    )
    assert(s.deltas.head.asInstanceOf[CompactionFile].start === 11)
    assert(Oracle.txlog(spark, t.toString, None) === expected)
    // A compaction that reaches past the version asked for is not used.
    assert(segment(t.toString, Some(12)).deltas.map(_.version) === Seq(11L, 12L))
  }

  test("update() reuses a cached snapshot and sees new commits") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/time-travel-start-start20-start40", tempDir())
    val log = DeltaLog.forTable(spark, t.toString)
    val first = log.snapshot().cache()
    assert(log.update() eq first)
    val logDir = t.resolve("_delta_log")
    Files.write(
      logDir.resolve(FileNames.commitName(3)),
      Seq(
        """{"add":{"path":"new.parquet","partitionValues":{},"size":7,"modificationTime":1,""" +
          """"dataChange":true}}""",
        """{"txn":{"appId":"app","version":9}}"""
      ).asJava,
      UTF_8
    )
    val next = log.update()
    assert(next.version === 3 && next.isCached)
    assert(next.numFiles === first.numFiles + 1)
    assert(next.sizeInBytes === first.sizeInBytes + 7)
    assert(next.setTransactions === Map("app" -> 9L))
    assert(Oracle.txlog(spark, t.toString, None) === Oracle.reference(spark, t.toString, None))
  }
}
