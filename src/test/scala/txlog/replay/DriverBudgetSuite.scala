package txlog.replay

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.spark.scheduler.{SparkListener, SparkListenerTaskEnd}
import org.apache.spark.sql.catalyst.expressions.ScalaUDF
import org.apache.spark.sql.execution.{FileSourceScanExec, FilterExec, SparkPlan}
import org.apache.spark.sql.execution.exchange.ShuffleExchangeLike
import org.apache.spark.sql.execution.window.WindowExec

import txlog.{DeltaLog, Fixtures, Oracle, Snapshot, SparkSuite}
import txlog.protocol.FileNames

/** What replay holds on the driver is bounded by byte budgets, past which it falls back to a
  * distributed path; a large tail leaves the checkpoint unshuffled. Expectations come from
  * delta-spark.
  */
class DriverBudgetSuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn

  /** A copy of a fixture without Hadoop's `.crc` side files (stale in some fixtures; delta-spark
    * checks them).
    */
  private def fixture(name: String): Path = {
    val t = Fixtures.copy(name, tempDir())
    Files
      .walk(t)
      .iterator()
      .asScala
      .toSeq
      .filter(_.getFileName.toString.endsWith(".crc"))
      .filter(_.getFileName.toString.startsWith("."))
      .foreach(Files.delete)
    t
  }

  private def commit(t: Path, version: Long, actions: String*): Unit =
    Files.write(
      t.resolve("_delta_log").resolve(FileNames.commitName(version)),
      actions.asJava,
      UTF_8
    )

  private def add(path: String, size: Long, tags: String = "{}") =
    s"""{"add":{"path":"$path","partitionValues":{},"size":$size,"modificationTime":1,""" +
      s""""dataChange":true,"tags":$tags}}"""

  private def remove(path: String) =
    s"""{"remove":{"path":"$path","deletionTimestamp":${System.currentTimeMillis()},""" +
      """"dataChange":true}}"""

  private def agrees(t: Path, s: Snapshot): Unit = {
    val reference = Oracle.reference(spark, t.toString, None)
    assert(Oracle.view(spark, s) === reference, s"v${s.version}")
    assert(
      (s.numFiles, s.sizeInBytes) === (reference.live.size, reference.live.toSeq.map(_._3).sum)
    )
    assert(s.numTombstones === reference.tombstones.size)
  }

  inTurn("update() caches the new files once the overlay passes its byte budget") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = fixture("golden/time-travel-start-start20-start40")
    // Each commit adds one file with a 2,000-character path: a few of them pass 16 KiB, far
    // below the 100,000 actions maxOverlayActions allows.
    withConf(DriverBudgets.MaxOverlayBytesConf -> (16 * 1024).toString) {
      val log = DeltaLog.forTable(spark, t.toString)
      val userCached = log.snapshot().cache()
      var root = userCached
      val first = root.version
      var fellBack = 0
      (1 to 8).foreach { i =>
        commit(t, first + i, add(s"f$i-" + "x" * 2000 + ".parquet", i))
        val s = log.update()
        assert(s.version === first + i)
        if (s.isCached) {
          fellBack += 1
          // A cache txlog made is released when replaced; the one the user asked for is kept.
          if (root eq userCached) assert(root.isCached, "the user's cache is kept")
          else assert(!root.isCached, "the cache txlog made and replaced is released")
          root = s
        } else assert(s.cachedRoot.exists(_ eq root), s"v${s.version} shares the cache")
        agrees(t, s)
      }
      assert(fellBack >= 2, "the budget was passed, and passed again on the new cache")
      root.unpersist()
      userCached.unpersist()
    }
  }

  inTurn("a large tail leaves the checkpoint unshuffled: no exchange without the hash filter") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = fixture("golden/checkpoint")
    val log = DeltaLog.forTable(spark, t.toString)
    val before = log.snapshot()
    val gone = before.allFiles.select("path").collect().map(_.getString(0)).sorted.take(2)
    // 80 MiB of tail JSON (past the old 64 MiB broadcast limit): adds padded with large tags.
    val pad = "p" * (10 * 1024)
    val adds = (0 until 8 * 1024).map(i => add(s"tail-$i.parquet", i, s"""{"pad":"$pad"}"""))
    adds.grouped(1024).zipWithIndex.foreach { case (group, i) =>
      val extra = if (i == 0) gone.map(remove).toSeq else Nil
      commit(t, before.version + 1 + i, (extra ++ group): _*)
    }
    withConf(
      LogLineReader.LocalReadMaxBytesConf -> "0",
      "spark.sql.adaptive.enabled" -> "false"
    ) {
      val s = DeltaLog.forTable(spark, t.toString).snapshot()
      Seq(s.allFiles, s.tombstones).foreach { df =>
        val plan = df.queryExecution.executedPlan
        val shuffled = plan.collect { case e: ShuffleExchangeLike => e.asInstanceOf[SparkPlan] }
        shuffled.foreach { e =>
          val readsCheckpoint = e.exists {
            case scan: FileSourceScanExec =>
              scan.relation.location.inputFiles.exists(_.contains(".checkpoint."))
            case _ => false
          }
          val hashFiltered = e.exists {
            case f: FilterExec =>
              f.condition.exists {
                case u: ScalaUDF => u.udfName.contains(TouchedKeyHashes.UdfName)
                case _           => false
              }
            case _ => false
          }
          assert(!readsCheckpoint || hashFiltered, s"checkpoint shuffled in\n$plan")
        }
      }
      agrees(t, s)
    }
  }

  test("the replay budget decides where a tail is read: 45 bytes of heap per 32 of JSON") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = fixture("golden/time-travel-start-start20-start40") // commits only
    val json = Files
      .list(t.resolve("_delta_log"))
      .iterator()
      .asScala
      .toSeq
      .filter(_.getFileName.toString.endsWith(".json"))
      .map(Files.size)
      .sum
    def jobsToLoadAndCount(conf: (String, String)*): Seq[String] = withConf(conf: _*) {
      val (_, jobs) = txlog.testing.JobDescriptions.of(spark) {
        val s = DeltaLog.forTable(spark, t.toString).snapshot()
        (s.numFiles, s.sizeInBytes, s.numTombstones)
      }
      agrees(t, DeltaLog.forTable(spark, t.toString).snapshot())
      jobs
    }
    val fits = (json * 45 + 31) / 32 // the heap the tail takes on the driver, rounded up
    assert(jobsToLoadAndCount(DriverBudgets.MaxReplayBytesConf -> fits.toString) === Nil)
    assert(jobsToLoadAndCount(DriverBudgets.MaxReplayBytesConf -> (fits - 64).toString).nonEmpty)
    // the tail's own budget, when set, wins over the replay budget
    val both = Seq(
      DriverBudgets.MaxReplayBytesConf -> "0",
      LogLineReader.LocalReadMaxBytesConf -> json.toString
    )
    assert(jobsToLoadAndCount(both: _*) === Nil)
    // unset, the budget is min(256 MiB, heap / 8), as issue #66 states it
    assert(
      DriverBudgets.maxReplayBytes(spark) ===
        math.min(256L << 20, Runtime.getRuntime.maxMemory / 8)
    )
  }

  test("a tail too large to plan as rows lists its winning lines, read by tasks: no window") {
    assume(Fixtures.available, Fixtures.skipMessage)
    // a checkpoint whose files the tail removes, and a log of commits only
    Seq("golden/basic-with-inserts-deletes-checkpoint", "golden/time-travel-start-start20-start40")
      .foreach { name =>
        val t = fixture(name)
        withConf(txlog.config.TxlogConf.ReplayMaxPlannedTailBytes.key -> "1") {
          val (s, jobs) = txlog.testing.JobDescriptions.of(spark) {
            val s = DeltaLog.forTable(spark, t.toString).snapshot()
            (s.numFiles, s.numTombstones)
            s
          }
          assert(jobs.isEmpty, s"$name: the state and the counts come from the driver: $jobs")
          val plan = s.allFiles.queryExecution.executedPlan
          assert(plan.collect { case w: WindowExec => w }.isEmpty, s"$name\n$plan")
          agrees(t, s)
          val rows = spark.read.format("delta").load(t.toString).count()
          assert(s.toDF.count() === rows, name)
        }
      }
  }

  test("an existing compaction is compared by a job, without collecting its lines") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = fixture("golden/checkpoint")
    val log = DeltaLog.forTable(spark, t.toString)
    val v = log.snapshot().version
    // About 1 MiB of add lines in the range, with random names: collected rows are compressed,
    // so repetitive names would reach the driver in a few KiB even if collected.
    val random = new scala.util.Random(7)
    val adds = (0 until 4000).map(i => add(s"c-$i-" + random.alphanumeric.take(200).mkString, i))
    commit(t, v + 1, adds.take(2000): _*)
    commit(t, v + 2, adds.drop(2000): _*)
    log.compact(v + 1, v + 2)
    var resultBytes = 0L
    val listener = new SparkListener {
      override def onTaskEnd(end: SparkListenerTaskEnd): Unit =
        if (end.taskMetrics != null) synchronized(resultBytes += end.taskMetrics.resultSize)
    }
    spark.sparkContext.addSparkListener(listener)
    try {
      log.compact(v + 1, v + 2) // the same content again: a no-op, decided by comparing
      org.apache.spark.txlog.ListenerBuses.drain(spark.sparkContext)
    } finally spark.sparkContext.removeSparkListener(listener)
    assert(resultBytes < 256 * 1024, s"$resultBytes bytes of task results reached the driver")
    agrees(t, DeltaLog.forTable(spark, t.toString).snapshot())
  }
}
