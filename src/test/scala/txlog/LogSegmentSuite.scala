package txlog

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import txlog.log.{LogListing, LogSegment}
import txlog.protocol.CompactionFile
import txlog.protocol.FileNames
import txlog.replay.{CachedFiles, SnapshotLoader}

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

  test("update() builds on a cached snapshot: shares its cache, then caches again") {
    updatesOnCache(indexed = true)
  }

  test("update() without the file index counts by scanning the cached files") {
    spark.conf.set(CachedFiles.MaxIndexedFilesConf, "0")
    try updatesOnCache(indexed = false)
    finally spark.conf.unset(CachedFiles.MaxIndexedFilesConf)
  }

  private def updatesOnCache(indexed: Boolean): Unit = {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/time-travel-start-start20-start40", tempDir())
    val log = DeltaLog.forTable(spark, t.toString)
    val first = log.snapshot().cache()
    assert(first.fileIndex.isDefined === indexed)
    assert(log.update() eq first)
    val logDir = t.resolve("_delta_log")
    def commit(version: Long, actions: String*): Unit =
      Files.write(logDir.resolve(FileNames.commitName(version)), actions.asJava, UTF_8)
    def add(path: String, size: Long) =
      s"""{"add":{"path":"$path","partitionValues":{},"size":$size,"modificationTime":1,""" +
        """"dataChange":true}}"""
    def remove(path: String) =
      s"""{"remove":{"path":"$path","deletionTimestamp":${System.currentTimeMillis()},""" +
        """"dataChange":true}}"""
    def agrees(s: Snapshot): Unit = {
      val reference = Oracle.reference(spark, t.toString, None)
      assert(Oracle.view(spark, s) === reference)
      assert(
        (s.numFiles, s.sizeInBytes) === (reference.live.size, reference.live.toSeq.map(_._3).sum)
      )
      assert(s.numTombstones === reference.tombstones.size)
    }

    commit(3, add("new.parquet", 7), """{"txn":{"appId":"app","version":9}}""")
    val second = log.update()
    // A few commits: reconciled on the driver onto the first snapshot's cache, shared.
    assert(second.version === 3 && !second.isCached && second.cachedRoot.exists(_ eq first))
    assert(first.isCached)
    assert(second.numFiles === first.numFiles + 1)
    assert(second.sizeInBytes === first.sizeInBytes + 7)
    assert(second.setTransactions === Map("app" -> 9L))
    agrees(second)

    // The next update still builds on the first cache, with both commits on top.
    val cachedPath = first.allFiles.select("path").head().getString(0)
    commit(4, remove(cachedPath), remove("new.parquet"), add("other.parquet", 5))
    val third = log.update()
    assert(third.version === 4 && third.cachedRoot.exists(_ eq first))
    assert(third.numFiles === first.numFiles)
    assert(
      third.sizeInBytes === first.sizeInBytes + 5 - first.allFiles
        .where(s"path = '$cachedPath'")
        .select("size")
        .head()
        .getLong(0)
    )
    agrees(third)

    // Past the overlay limit the new files are cached; the first cache, which the user asked for,
    // stays until the user releases it.
    spark.conf.set(SnapshotLoader.MaxOverlayActionsConf, "2")
    try {
      commit(5, add("a.parquet", 1), add("b.parquet", 2))
      val fourth = log.update()
      assert(fourth.version === 5 && fourth.isCached && fourth.cachedRoot.exists(_ eq fourth))
      assert(first.isCached)
      agrees(fourth)
      fourth.unpersist()
      first.unpersist()
      assert(!first.isCached)
    } finally spark.conf.unset(SnapshotLoader.MaxOverlayActionsConf)
  }
}
