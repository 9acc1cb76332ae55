package txlog.txn

import java.nio.file.{Files, Path => NPath}
import java.util.concurrent.TimeUnit

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.functions.typedLit

import txlog.{DeltaLog, SparkSuite}
import txlog.testing.{PausingLocalFileSystem, WriterProcess}
import txlog.txn.TxnTestKit._

/** Writers as separate OS processes (JVMs, see [[WriterProcess]]): racing on one table, and killed
  * with `kill -9` (SIGKILL, `Process.destroyForcibly`) before, during and after publishing a commit
  * and during the post-commit checkpoint. delta-spark is the oracle of what a reader sees.
  */
class ProcessWritersSuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn

  private def newTable(props: Map[String, String] = Map.empty): NPath = {
    val dir = tempDir("procs").resolve("t")
    DeltaLog.createTable(spark, dir.toString, schema, Nil, props)
    dir
  }

  private def logTail(f: NPath): String =
    if (Files.exists(f)) Files.readAllLines(f).asScala.takeRight(30).mkString("\n") else ""

  private def results(f: NPath): Seq[(Long, Int, String)] =
    if (!Files.exists(f)) Nil
    else
      Files.readAllLines(f).asScala.toSeq.filter(_.nonEmpty).map { l =>
        val Array(v, a, p) = l.split(" ")
        (v.toLong, a.toInt, p)
      }

  /** delta-spark's latest version and live file paths (relative). */
  private def reference(dir: NPath): (Long, Set[String]) = {
    RefLog.clearCache()
    val s = RefLog.forTable(spark, dir.toString).update()
    (s.version, s.allFiles.collect().map(_.path).toSet)
  }

  private def txlogView(dir: NPath): (Long, Set[String]) = {
    val s = DeltaLog.forTable(spark, dir.toString).snapshot()
    (s.version, s.allFiles.select("path").collect().map(_.getString(0)).toSet)
  }

  /** Every published commit file is whole: each line one JSON object, commitInfo first. */
  private def assertCommitsWhole(dir: NPath, latest: Long): Unit =
    (0L to latest).foreach { v =>
      val lines = commitLines(dir, v)
      assert(lines.nonEmpty && lines.head.has("commitInfo"), s"v$v")
    }

  /** Commits per writer: 8 in `make test`, 12 with `make test-breadth` ([[txlog.testing.Breadth]];
    * 25, the figure of the commits issue, took 121 s of a 26-minute CI run, and 12 took 100 s of a
    * 35-minute one; it still passes: `-Dtxlog.processWriters=25`). `make test-s3-race` races four
    * writer processes x 25 on S3.
    */
  private val perWriter = sys.props
    .get("txlog.processWriters")
    .map(_.toInt)
    .getOrElse(if (txlog.testing.Breadth.full) 12 else 8)

  /** Writer processes: 3 in `make test` (each is a JVM with a Spark session: its start costs more
    * CPU than its commits), 4 with `make test-breadth`.
    */
  private val writers = if (txlog.testing.Breadth.full) 4 else 3

  test(s"$writers writer processes x $perWriter commits: each lands once, versions contiguous") {
    val dir = newTable()
    val work = tempDir("procs")
    val n = writers * perWriter
    val procs = (1 to writers).map { id =>
      val p = WriterProcess.start(
        dir.toString,
        id,
        perWriter,
        work.resolve(s"w$id.txt"),
        work.resolve(s"w$id.log")
      )
      id -> p
    }
    procs.foreach { case (id, p) =>
      if (!p.waitFor(600, TimeUnit.SECONDS)) p.destroyForcibly()
      assert(p.exitValue() === 0, logTail(work.resolve(s"w$id.log")))
    }
    val all = (1 to writers).flatMap(id => results(work.resolve(s"w$id.txt")))
    assert(all.size === n)
    assert(all.map(_._1).sorted === (1L to n.toLong))
    assert(all.map(_._3).distinct.size === n)
    (1 to writers).foreach(id => assert(results(work.resolve(s"w$id.txt")).size === perWriter))
    val (v, files) = reference(dir)
    assert(v === n.toLong)
    assert(files === all.map(_._3).toSet)
    assert(txlogView(dir) === (v, files))
    assertCommitsWhole(dir, v)
    val txnIds = (1L to n.toLong).map(x => commitLines(dir, x).head.get("commitInfo").get("txnId"))
    assert(txnIds.distinct.size === n)
    info(s"${all.map(_._2).sum - n} retries among $n commits")
  }

  /** Starts a writer that stops at `pause` (see [[PausingLocalFileSystem]]), waits until it stopped
    * there and kills it with SIGKILL. Returns its committed (version, path) lines.
    */
  private def killedAt(dir: NPath, pause: String): Seq[(Long, Int, String)] = {
    val work = tempDir("procs")
    val marker = work.resolve("stopped")
    val p = WriterProcess.start(
      dir.toString,
      1,
      0,
      work.resolve("w.txt"),
      work.resolve("w.log"),
      Map(PausingLocalFileSystem.PauseKey -> pause, PausingLocalFileSystem.MarkerKey -> marker)
        .map { case (k, v) => k -> v.toString }
    )
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120)
    // The pauses come within the first 4 commits; a writer past 10 never matched.
    while (
      !Files.exists(marker) && p.isAlive && System.nanoTime() < deadline &&
      results(work.resolve("w.txt")).size < 10
    ) Thread.sleep(100)
    if (!Files.exists(marker)) p.destroyForcibly()
    assert(
      Files.exists(marker),
      s"the writer never reached $pause:\n${logTail(work.resolve("w.log"))}"
    )
    p.destroyForcibly()
    assert(p.waitFor(60, TimeUnit.SECONDS))
    assert(p.exitValue() === 137) // 128 + SIGKILL
    results(work.resolve("w.txt"))
  }

  /** After a kill: txlog and delta-spark agree on `expected` (version, files), no partial commit is
    * visible, and a new commit lands on top.
    */
  private def assertRecovers(dir: NPath, expected: Long, files: Set[String]): Unit = {
    assert(reference(dir) === (expected, files))
    assert(txlogView(dir) === (expected, files))
    assertCommitsWhole(dir, expected)
    val log = DeltaLog.forTable(spark, dir.toString)
    // The table is not partitioned: no partition values.
    val add = adds(spark, Seq("after-kill"))
      .withColumn("partitionValues", typedLit(Map.empty[String, String]))
    val r = log.startTransaction().addFiles(add).commit()
    assert(r.version === expected + 1)
    assert(reference(dir) === (expected + 1, files + "after-kill"))
  }

  private val commit3 = """\.00000000000000000003\.json\..*\.tmp"""

  inTurn("kill -9 with commit 3 staged but not published: the table stays at version 2") {
    val dir = newTable(Map("delta.checkpointInterval" -> "2"))
    val done = killedAt(dir, s"written:$commit3")
    assert(done.map(_._1) === Seq(1L, 2L))
    assertRecovers(dir, 2L, done.map(_._3).toSet)
  }

  inTurn("kill -9 halfway through writing commit 3: no partial commit is visible") {
    val dir = newTable(Map("delta.checkpointInterval" -> "2"))
    val done = killedAt(dir, s"midwrite:$commit3")
    assert(done.map(_._1) === Seq(1L, 2L))
    // The half-written file is hidden (a dot name) and never becomes version 3.
    val leftovers = Files.list(logDir(dir)).iterator().asScala.map(_.getFileName.toString).toSeq
    assert(leftovers.exists(n => n.startsWith(".00000000000000000003.json.")), leftovers)
    assertRecovers(dir, 2L, done.map(_._3).toSet)
  }

  inTurn("kill -9 during the post-commit checkpoint (parquet, then _last_checkpoint)") {
    // A small table's checkpoint is written on the driver (driver.parquet), else by a task.
    val parquet = """midwrite:(part-.*|driver)\.parquet"""
    Seq(parquet, """midwrite:\._last_checkpoint\..*\.tmp""").foreach { pause =>
      val dir = newTable(Map("delta.checkpointInterval" -> "2"))
      killedAt(dir, pause)
      // Commit 2 was published before its checkpoint began.
      assertRecovers(dir, 2L, Set("w1/f1.parquet", "w1/f2.parquet"))
    }
  }

  inTurn("kill -9 at random moments of a writer committing in a loop") {
    val seed = System.nanoTime()
    val random = new Random(seed)
    info(s"seed $seed")
    // One random moment per run (each run draws another; tests/test_killed_writer.py kills a
    // Python writer at another): the moments that matter most are hit on purpose above.
    locally {
      val dir = newTable(Map("delta.checkpointInterval" -> "2"))
      val work = tempDir("procs")
      val out = work.resolve("w.txt")
      val p = WriterProcess.start(dir.toString, 1, 0, out, work.resolve("w.log"))
      val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300)
      while (results(out).isEmpty && p.isAlive && System.nanoTime() < deadline) Thread.sleep(50)
      Thread.sleep(random.nextInt(6000).toLong)
      p.destroyForcibly()
      assert(p.waitFor(60, TimeUnit.SECONDS))
      val done = results(out)
      assert(done.nonEmpty, logTail(work.resolve("w.log")))
      val (v, files) = reference(dir)
      // The last commit may have landed without its result line.
      assert(v === done.size.toLong || v === done.size + 1L, s"v$v after ${done.size} commits")
      assert(files.size === v)
      assert(done.map(_._3).toSet.subsetOf(files))
      info(s"killed after ${done.size} reported commits; table at v$v")
      assertRecovers(dir, v, files)
    }
  }
}
