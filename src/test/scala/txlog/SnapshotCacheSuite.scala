package txlog

import java.util.concurrent.{CyclicBarrier, Executors, TimeUnit}

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration.Duration

import org.apache.spark.sql.delta.RefVersions
import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.storage.StorageLevel

import txlog.replay.SnapshotLoader
import txlog.util.Clock

/** Caches stay until whoever made them releases them, and what a snapshot counts and lists is fixed
  * when it is built.
  */
class SnapshotCacheSuite extends SparkSuite {

  private def append(table: String, rows: Int): Unit =
    spark.range(rows).write.format("delta").mode("append").save(table)

  private def table(commits: Int): String = {
    val t = tempDir().resolve("t").toString
    (1 to commits).foreach(append(t, _))
    t
  }

  /** The ids of the context's persistent RDDs. Other suites of the JVM share the context, and
    * theirs may be released (by Spark's cleaner) while a test runs: tests compare ids, not counts.
    */
  private def persistentIds: Set[Int] = spark.sparkContext.getPersistentRDDs.keySet.toSet

  test("two threads caching one snapshot at once build one cache, released by unpersist") {
    val t = table(3)
    val pool = Executors.newFixedThreadPool(2)
    implicit val ec: ExecutionContext = ExecutionContext.fromExecutor(pool)
    try {
      (1 to 3).foreach { round =>
        val baseline = persistentIds
        val snap = DeltaLog.forTable(spark, t).snapshot()
        val barrier = new CyclicBarrier(2)
        val calls = Seq.fill(2)(Future { barrier.await(); snap.cache() })
        calls.foreach(Await.result(_, Duration.Inf))
        assert(snap.isCached)
        val added = persistentIds -- baseline
        assert(added.nonEmpty)
        snap.unpersist()
        assert((persistentIds intersect added).isEmpty, s"round $round: a second cache leaked")
      }
    } finally { pool.shutdown(); pool.awaitTermination(1, TimeUnit.MINUTES) }
  }

  test("a snapshot the user cached stays cached after update; txlog's own cache is released") {
    val t = table(1)
    spark.conf.set(SnapshotLoader.MaxOverlayActionsConf, "0") // every update caches anew
    try {
      val log = DeltaLog.forTable(spark, t)
      val mine = log.snapshot().cache()
      append(t, 1)
      val first = log.update()
      assert(first.version === 1L && first.isCached)
      assert(mine.isCached, "the user's cache was released by update()")
      assert(mine.storageLevel === StorageLevel.MEMORY_AND_DISK)
      append(t, 1)
      val second = log.update()
      assert(second.version === 2L && second.isCached)
      assert(!first.isCached, "txlog's own cache must be released when superseded")
      assert(mine.isCached)
      assert(mine.numFiles === 1L)
      mine.unpersist()
      second.unpersist()
      assert(!mine.isCached)
    } finally spark.conf.unset(SnapshotLoader.MaxOverlayActionsConf)
  }

  test("numTombstones and tombstones agree under a clock that moves") {
    val t = table(1)
    spark.sql(s"DELETE FROM delta.`$t`") // a tombstone deleted now
    val now = System.currentTimeMillis()
    val week = 7L * 24 * 3600 * 1000
    val snap = Clock.at(now)(DeltaLog.forTable(spark, t).snapshot())
    Clock.at(now + 2 * week) { // the tombstone expires
      assert(snap.numTombstones === 1L)
      assert(snap.tombstones.count() === 1L)
      assert(snap.numTombstones === snap.tombstones.count())
      val later = DeltaLog.forTable(spark, t).snapshot()
      assert(later.tombstones.count() === 0L)
      assert(later.numTombstones === 0L)
    }
    RefLog.clearCache()
    assert(RefLog.forTable(spark, t).update().tombstones.count() === 1L) // delta-spark, now
  }

  test("transactions of a snapshot are those live when it was built, as its counts") {
    val t = tempDir().resolve("txn").toString
    spark.sql(
      s"CREATE TABLE delta.`$t` (id LONG) USING delta TBLPROPERTIES " +
        "('delta.setTransactionRetentionDuration' = 'interval 1 days')"
    )
    spark
      .range(1)
      .write
      .format("delta")
      .mode("append")
      .option("txnAppId", "app")
      .option("txnVersion", "7")
      .save(t)
    val now = System.currentTimeMillis()
    val snap = Clock.at(now)(DeltaLog.forTable(spark, t).snapshot())
    Clock.at(now + 3L * 24 * 3600 * 1000) {
      assert(snap.setTransactions === Map("app" -> 7L))
      assert(DeltaLog.forTable(spark, t).snapshot().setTransactions === Map.empty)
    }
  }

  test("a checksum written now still validates after setTransactionRetentionDuration passed") {
    val t = tempDir().resolve("crc").toString
    spark.sql(
      s"CREATE TABLE delta.`$t` (id LONG) USING delta TBLPROPERTIES " +
        "('delta.setTransactionRetentionDuration' = 'interval 1 days')"
    )
    spark
      .range(1)
      .write
      .format("delta")
      .mode("append")
      .option("txnAppId", "app")
      .option("txnVersion", "7")
      .save(t)
    // delta-spark's own checksum leaves setTransactions out: txlog writes one that has them.
    val logDir = new java.io.File(t, "_delta_log")
    logDir.listFiles().filter(_.getName.contains("00000000000000000001.crc")).foreach(_.delete())
    val log = DeltaLog.forTable(spark, t)
    log.writeChecksum(1L)
    RefLog.clearCache()
    val ref = RefVersions.snapshotAt(RefLog.forTable(spark, t), 1L)
    assert(ref.checksumOpt.flatMap(_.setTransactions).map(_.map(_.appId)) === Some(Seq("app")))
    assert(ref.validateChecksum(Map.empty))
    assert(log.validateChecksum(1L).isValid)
    Clock.at(System.currentTimeMillis() + 3L * 86400000L) {
      val later = log.validateChecksum(1L)
      assert(later.isValid, later.mismatches.mkString("; "))
    }
  }
}
