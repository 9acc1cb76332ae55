package txlog

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}

import scala.concurrent.duration._

import org.scalatest.BeforeAndAfterEach

import txlog.replay.LogLineReader
import txlog.testing.{Fault, FaultInjectingFileSystem => Faulty}

/** Storage failures while reading the log are LOG_READ_FAILED (retryable), corrupt files are
  * MALFORMED_LOG_FILE, both naming the file and its version as fields; a checkpoint or sidecar that
  * vanished after listing is looked for again by listing the log once more.
  */
class ReadFailureSuite extends SparkSuite with BeforeAndAfterEach {
  override def extraConf: Map[String, String] = Faulty.conf

  // golden/checkpoint: commits 0 to 14, a classic checkpoint at 10.
  private val Checkpointed = "golden/checkpoint"
  private val Cp10 = "00000000000000000010.checkpoint.parquet"
  // golden/v2-checkpoint-parquet: a V2 checkpoint at 2 whose files are in two sidecars.
  private val V2 = "golden/v2-checkpoint-parquet"
  private val Sidecar =
    "00000000000000000002.checkpoint.0000000001.0000000002.055454d8-329c-4e0e-864d-7f867075af33" +
      ".parquet"

  override def beforeEach(): Unit = {
    idle()
    Faulty.reset()
    spark.conf.unset(LogLineReader.LocalReadMaxBytesConf)
  }
  override def afterEach(): Unit = {
    Faulty.reset()
    spark.conf.unset(LogLineReader.LocalReadMaxBytesConf)
  }

  /** Waits (up to 30 s) until no task runs: a job that failed on one file aborts, but its other
    * tasks may still open their files (of the same names, counted by name) after the next test
    * reset the counts.
    */
  private def idle(): Unit = {
    val deadline = System.nanoTime() + 30.seconds.toNanos
    def running = spark.sparkContext.statusTracker.getExecutorInfos.map(_.numRunningTasks).sum
    while (running > 0 && System.nanoTime() < deadline) Thread.sleep(10)
  }

  private def copy(name: String): Path = {
    assume(Fixtures.available, Fixtures.skipMessage)
    Fixtures.copy(name, tempDir())
  }
  private def faulty(t: Path): String = s"${Faulty.Scheme}://$t"
  private def log(t: Path): DeltaLog = DeltaLog.forTable(spark, faulty(t))
  private def distributed(): Unit = spark.conf.set(LogLineReader.LocalReadMaxBytesConf, "0")
  private def failure(read: => Any): TxlogException = intercept[TxlogException](read)

  private def assertReadFailed(e: TxlogException, name: String, version: Option[Long]): Unit = {
    assert(e.errorClass === "LOG_READ_FAILED", e.getMessage)
    assert(e.isRetryable)
    assert(e.file.exists(_.endsWith(s"/$name")), e.file)
    assert(e.version === version)
  }
  private def assertMalformed(e: TxlogException, name: String, version: Long): Unit = {
    assert(e.errorClass === "MALFORMED_LOG_FILE", e.getMessage)
    assert(!e.isRetryable)
    assert(e.file.exists(_.endsWith(s"/$name")), e.file)
    assert(e.version === Some(version))
  }

  /** Same table state; paths compared by name (txlog's are under the faulty scheme). */
  private def assertSame(actual: SnapshotView, expected: SnapshotView): Unit = {
    def byName(v: SnapshotView) = v.copy(
      live = v.live.map(f => f.copy(_1 = f._1.substring(f._1.lastIndexOf('/') + 1))),
      tombstones = v.tombstones.map(f => f.copy(_1 = f._1.substring(f._1.lastIndexOf('/') + 1)))
    )
    assert(byName(actual) === byName(expected))
  }

  test("a commit deleted between listing and reading is LOG_READ_FAILED naming it") {
    val t = copy(Checkpointed)
    Faulty.fail("00000000000000000012.json", Fault.DeleteOnOpen)
    assertReadFailed(failure(log(t).snapshot()), "00000000000000000012.json", Some(12L))
  }

  test("read by tasks, a commit deleted after listing is LOG_READ_FAILED naming it") {
    val t = copy(Checkpointed)
    distributed()
    Faulty.fail("00000000000000000013.json", Fault.DeleteOnOpen)
    assertReadFailed(failure(log(t).snapshot()), "00000000000000000013.json", Some(13L))
  }

  test("read by tasks from a store that is not a local disk, each commit is read once") {
    val t = copy(Checkpointed)
    distributed()
    val snap = log(t).snapshot()
    assert(snap.numFiles === snap.allFiles.count())
    assertSame(Oracle.view(spark, snap), Oracle.fixtureReference(Checkpointed).get)
    // The non-file state, the counts and the file list parse the lines the tasks kept.
    (11 to 14).foreach(v => assert(Faulty.openCalls(f"$v%020d.json") === 1L, s"commit $v"))
  }

  test("a permission-denied commit is LOG_READ_FAILED, not a corrupt log") {
    val t = copy(Checkpointed)
    Faulty.fail("00000000000000000011.json", Fault.AccessDenied)
    assertReadFailed(failure(log(t).snapshot()), "00000000000000000011.json", Some(11L))
  }

  test("an I/O error on a commit read by tasks is LOG_READ_FAILED naming it") {
    val t = copy(Checkpointed)
    distributed()
    Faulty.fail("00000000000000000014.json", Fault.Io)
    assertReadFailed(failure(log(t).snapshot()), "00000000000000000014.json", Some(14L))
  }

  test("a cancelled job propagates as Spark's cancellation, not as a log error") {
    val t = copy(Checkpointed)
    distributed()
    Faulty.fail("00000000000000000013.json", Fault.Block)
    val load = scala.concurrent.Future(log(t).snapshot())(scala.concurrent.ExecutionContext.global)
    assert(Faulty.awaitBlocked(120), "a task reached the commit")
    spark.sparkContext.cancelAllJobs()
    Faulty.release()
    val e = intercept[Throwable](scala.concurrent.Await.result(load, 120.seconds))
    assert(!e.isInstanceOf[TxlogException], e.toString)
    assert(e.isInstanceOf[org.apache.spark.SparkException], e.toString)
    assert(e.getMessage.toLowerCase(java.util.Locale.ROOT).contains("cancel"), e.getMessage)
  }

  test("an I/O error on the checkpoint parquet is LOG_READ_FAILED naming it") {
    val t = copy(Checkpointed)
    Faulty.fail(Cp10, Fault.Io)
    assertReadFailed(failure(log(t).snapshot()), Cp10, Some(10L))
  }

  test("an I/O error on a sidecar is LOG_READ_FAILED naming it, with its checkpoint's version") {
    val t = copy(V2)
    Faulty.fail(Sidecar, Fault.Io)
    assertReadFailed(failure(log(t).snapshot().numFiles), Sidecar, Some(2L))
  }

  test("an I/O error listing the log is LOG_READ_FAILED naming _delta_log") {
    val t = copy(Checkpointed)
    Faulty.fail("_delta_log", Fault.Io)
    assertReadFailed(failure(log(t).snapshot()), "_delta_log", None)
  }

  test("a checkpoint deleted after listing: the log is listed again and read without it") {
    val t = copy(Checkpointed)
    val expected = Oracle.reference(spark, t.toString, None)
    Faulty.fail(Cp10, Fault.DeleteOnOpen)
    val s = log(t).snapshot()
    assert(s.checkpointVersion === None)
    assertSame(Oracle.view(spark, s), expected)
  }

  test("time travel by timestamp: a checkpoint deleted after listing, the log listed again") {
    val t = copy(Checkpointed)
    val base = 1700000000000L
    (0 to 14).foreach { v =>
      val commit = new java.io.File(s"$t/_delta_log/${f"$v%020d"}.json")
      assert(commit.setLastModified(base + v * 1000L))
    }
    val expected = Oracle.reference(spark, t.toString, Some(12L))
    Faulty.fail(Cp10, Fault.DeleteOnOpen)
    val s = log(t).snapshotAsOf(new java.sql.Timestamp(base + 12 * 1000L + 500))
    assert(s.version === 12L)
    assert(s.checkpointVersion === None)
    assertSame(Oracle.view(spark, s), expected)
  }

  test("a checkpoint that keeps vanishing is LOG_READ_FAILED after one more listing") {
    val t = copy(Checkpointed)
    Faulty.fail(Cp10, Fault.Vanish(Int.MaxValue))
    assertReadFailed(failure(log(t).snapshot()), Cp10, Some(10L))
    assert(Faulty.vanishCount(Cp10) === 2)
  }

  test("a sidecar that vanishes once is read after listing again") {
    val t = copy(V2)
    val expected = Oracle.reference(spark, t.toString, None)
    Faulty.fail(Sidecar, Fault.Vanish(1))
    val s = log(t).snapshot()
    assert(s.numFiles === expected.live.size)
    assert(Faulty.vanishCount(Sidecar) >= 2)
  }

  test("a sidecar that keeps vanishing is LOG_READ_FAILED naming it") {
    val t = copy(V2)
    Faulty.fail(Sidecar, Fault.Vanish(Int.MaxValue))
    assertReadFailed(failure(log(t).snapshot().numFiles), Sidecar, Some(2L))
  }

  private def append(t: Path, name: String, text: String): Unit =
    Files.write(
      t.resolve("_delta_log").resolve(name),
      text.getBytes(UTF_8),
      StandardOpenOption.APPEND
    )

  test("a malformed commit line is MALFORMED_LOG_FILE with file and version as fields") {
    val t = copy(Checkpointed)
    append(t, "00000000000000000013.json", "{\"add\": {\"path\": \"x\", \n")
    assertMalformed(failure(log(t).snapshot()), "00000000000000000013.json", 13L)
  }

  test("read by tasks, a malformed file action is MALFORMED_LOG_FILE with file and version") {
    val t = copy(Checkpointed)
    distributed()
    // Valid JSON whose add has a size of the wrong type: only the file state's job sees it.
    append(t, "00000000000000000012.json", "{\"add\":{\"path\":\"x\",\"size\":\"big\"}}\n")
    assertMalformed(failure(log(t).snapshot().numFiles), "00000000000000000012.json", 12L)
  }

  test("a truncated checkpoint parquet is MALFORMED_LOG_FILE with file and version") {
    val t = copy(Checkpointed)
    val cp = t.resolve("_delta_log").resolve(Cp10)
    val bytes = Files.readAllBytes(cp)
    Files.write(cp, java.util.Arrays.copyOf(bytes, bytes.length / 2))
    val e = failure(DeltaLog.forTable(spark, t.toString).snapshot().numFiles)
    assertMalformed(e, Cp10, 10L)
  }
}
