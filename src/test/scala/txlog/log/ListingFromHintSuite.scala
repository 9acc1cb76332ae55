package txlog.log

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import org.scalatest.BeforeAndAfterEach

import txlog.{DeltaLog, Fixtures, Oracle, Snapshot, SnapshotView, SparkSuite, TxlogException}
import txlog.testing.{FaultInjectingFileSystem => Faulty}
import txlog.protocol.FileNames

/** `_delta_log` is listed from the checkpoint `_last_checkpoint` names, and `update()` lists only
  * what is newer than its snapshot; a wrong hint, or a version before it, lists everything.
  */
class ListingFromHintSuite extends SparkSuite with BeforeAndAfterEach {
  override def extraConf: Map[String, String] = Faulty.conf

  // Commits 0 to 13 and a classic checkpoint at 10.
  private val Fixture = "golden/basic-with-inserts-deletes-checkpoint"

  override def beforeEach(): Unit = Faulty.reset()
  override def afterEach(): Unit = Faulty.reset()

  private def copy(): Path = {
    assume(Fixtures.available, Fixtures.skipMessage)
    Fixtures.copy(Fixture, tempDir())
  }
  private def hint(t: Path, json: String): Unit =
    Files.write(t.resolve("_delta_log").resolve("_last_checkpoint"), json.getBytes(UTF_8))
  private def log(t: Path): DeltaLog = DeltaLog.forTable(spark, s"${Faulty.Scheme}://$t")
  private def listed(log: DeltaLog): LogListing = log.currentListing.get
  private def commitVersions(l: LogListing): Seq[Long] = l.commits.map(_.version)

  /** Same table state; paths compared by name (txlog's are under the faulty scheme). */
  private def assertSame(actual: SnapshotView, expected: SnapshotView): Unit = {
    def byName(v: SnapshotView) = v.copy(
      live = v.live.map(f => f.copy(_1 = f._1.substring(f._1.lastIndexOf('/') + 1))),
      tombstones = v.tombstones.map(f => f.copy(_1 = f._1.substring(f._1.lastIndexOf('/') + 1)))
    )
    assert(byName(actual) === byName(expected))
  }

  /** A copy with a hint naming its checkpoint at 10: delta-spark's view of it (taken first), the
    * log and its snapshot.
    */
  private def loadedFromHint(): (DeltaLog, Snapshot, SnapshotView) = {
    val t = copy()
    hint(t, """{"version":10,"size":13}""")
    val expected = Oracle.reference(spark, t.toString, None)
    val l = log(t)
    (l, l.snapshot(), expected)
  }

  test("with a _last_checkpoint hint only the files from its checkpoint on are listed") {
    val (l, s, expected) = loadedFromHint()
    assert(Faulty.listCalls("_delta_log") === 1)
    val listing = listed(l)
    assert(commitVersions(listing) === (10L to 13L))
    assert(listing.checkpoints.map(_.version) === Seq(10L))
    assert(!listing.isComplete)
    assert(listing.earliestVersion === None)
    assert(s.version === 13L)
    assertSame(Oracle.view(spark, s), expected)
  }

  test("from the hint on, nothing is looked up twice: the checkpoint is scanned as listed") {
    val (_, s, expected) = loadedFromHint()
    assertSame(Oracle.view(spark, s), expected) // counts, the file list and the tombstones
    val checkpoint = FileNames.classicCheckpointName(10L)
    // The hint is opened once, never looked up; the driver neither lists nor looks up the
    // checkpoint (`spark.read.parquet` would, for each job over it; Spark's tasks still look up
    // the file they open); _delta_log is listed once.
    assert(Faulty.openCalls(FileNames.LastCheckpoint) === 1)
    assert(!Faulty.stattedNames.contains(FileNames.LastCheckpoint), Faulty.stattedNames)
    assert(!Faulty.stattedOnDriverNames.contains(checkpoint), Faulty.stattedOnDriverNames)
    assert(Faulty.listCalls(checkpoint) === 0)
    assert(Faulty.listCalls === 1)
  }

  test("a small checkpoint is read once, for the state and the counts, which are delta-spark's") {
    val (_, s, expected) = loadedFromHint()
    // commits 11 to 13 remove files the checkpoint adds: the counts leave those out
    val counts = (s.numFiles, s.sizeInBytes, s.numTombstones)
    assert(Faulty.openCalls(FileNames.classicCheckpointName(10L)) === 1)
    val live = expected.live.toSeq
    assert(counts === ((live.size.toLong, live.map(_._3).sum, expected.tombstones.size.toLong)))
  }

  test("without a hint, _last_checkpoint is looked for once and _delta_log listed once") {
    val t = copy()
    Files.delete(t.resolve("_delta_log").resolve(FileNames.LastCheckpoint))
    val expected = Oracle.reference(spark, t.toString, None)
    val s = log(t).snapshot()
    assert(Faulty.openCalls(FileNames.LastCheckpoint) === 1)
    assert(Faulty.listCalls("_delta_log") === 1)
    assert(s.checkpointVersion === Some(10L))
    assertSame(Oracle.view(spark, s), expected)
  }

  test("by timestamp, the earlier snapshot is built from the latest's tail: nothing read twice") {
    val t = copy()
    // commit v at 1,000 + v seconds: a timestamp just after commit 12's names version 12
    (0L to 13L).foreach { v =>
      val f = t.resolve("_delta_log").resolve(FileNames.commitName(v)).toFile
      assert(f.setLastModified((1000L + v) * 1000L))
    }
    val expected = Oracle.reference(spark, t.toString, Some(12L))
    Faulty.resetCounts()
    val at = new java.sql.Timestamp(1012L * 1000L + 500L)
    val (s, jobs) = txlog.testing.JobDescriptions.of(spark)(log(t).snapshotAsOf(at))
    assert(s.version === 12L)
    assert(jobs.isEmpty, jobs) // the tail (commits 11 to 13) is read on the driver, once
    (11L to 13L).foreach(v => assert(Faulty.openCalls(FileNames.commitName(v)) === 1, s"v$v"))
    assertSame(Oracle.view(spark, s), expected)
  }

  test("a hint naming a checkpoint that does not exist falls back to a full listing") {
    val t = copy()
    hint(t, """{"version":7,"size":13}""")
    val expected = Oracle.reference(spark, t.toString, None)
    val l = log(t)
    val s = l.snapshot()
    assert(commitVersions(listed(l)) === (0L to 13L))
    assert(listed(l).earliestVersion === Some(0L))
    assertSame(Oracle.view(spark, s), expected)
  }

  test("a hint naming an incomplete multi-part checkpoint falls back to a full listing") {
    val t = copy()
    val dir = t.resolve("_delta_log")
    Files.copy(
      dir.resolve("00000000000000000010.checkpoint.parquet"),
      dir.resolve("00000000000000000012.checkpoint.0000000001.0000000002.parquet")
    )
    hint(t, """{"version":12,"size":13,"parts":2}""")
    val expected = Oracle.reference(spark, t.toString, None)
    val l = log(t)
    val s = l.snapshot()
    assert(listed(l).isComplete)
    assert(s.checkpointVersion === Some(10L))
    assertSame(Oracle.view(spark, s), expected)
  }

  test("a hint past a gap in the commits falls back to a full listing, which reports the gap") {
    val t = copy()
    hint(t, """{"version":10,"size":13}""")
    Files.delete(t.resolve("_delta_log").resolve("00000000000000000012.json"))
    val e = intercept[TxlogException](log(t).snapshot())
    assert(e.errorClass === "LOG_VERSION_GAP")
    assert(Faulty.listCalls("_delta_log") === 2)
  }

  test("time travel before the hinted checkpoint lists everything") {
    val t = copy()
    hint(t, """{"version":10,"size":13}""")
    val expected = Oracle.reference(spark, t.toString, Some(5L))
    val s = log(t).snapshot(5L)
    assert(s.version === 5L)
    assertSame(Oracle.view(spark, s), expected)
  }

  test("a version past the latest is VERSION_NOT_FOUND naming the whole range") {
    val t = copy()
    hint(t, """{"version":10,"size":13}""")
    val e = intercept[TxlogException](log(t).snapshot(20L))
    assert(e.errorClass === "VERSION_NOT_FOUND")
    assert(e.getMessage.contains("Versions 0 to 13"), e.getMessage)
  }

  test("update() after new commits lists and stats only the new files") {
    val t = copy()
    hint(t, """{"version":10,"size":13}""")
    val l = log(t)
    val before = l.snapshot().cache() // update() builds on it: only the new commits are read
    for (_ <- 1 to 3) {
      spark.range(1).write.format("delta").mode("append").save(t.toString)
    }
    Faulty.resetCounts()
    val s = l.update()
    assert(s.version === 16L)
    assert(Faulty.listCalls("_delta_log") === 1)
    val newCommits = Set(14L, 15L, 16L).map(FileNames.commitName)
    assert(Faulty.stattedNames.subsetOf(newCommits), Faulty.stattedNames)
    assert(commitVersions(listed(l)) === (10L to 16L))
    assertSame(Oracle.view(spark, s), Oracle.reference(spark, t.toString, None))
    before.unpersist()
  }
}
