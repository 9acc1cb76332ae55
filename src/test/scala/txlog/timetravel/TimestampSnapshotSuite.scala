package txlog.timetravel

import java.sql.Timestamp

import scala.util.Success

import txlog.{DeltaLog, Oracle, SparkSuite}
import txlog.protocol.FileNames
import txlog.replay.LogLineReader
import txlog.testing.JobDescriptions

/** A snapshot found by timestamp on a log read by tasks: the latest snapshot's non-file rows give
  * the earlier version's state (one job reads protocol and metadata, not two), and each version's
  * snapshot is delta-spark's, with metadata, protocol and transactions changed after it.
  */
class TimestampSnapshotSuite extends SparkSuite {
  override def extraConf: Map[String, String] =
    super.extraConf + (LogLineReader.LocalReadMaxBytesConf -> "0")

  test("every version by its timestamp is delta-spark's, one state job each") {
    val path = tempDir().resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$path` (id LONG) USING delta TBLPROPERTIES ('a' = '1')"
    )
    def append(n: Int, txn: Option[Long] = None): Unit = {
      val w = spark.range(n).write.format("delta").mode("append")
      txn.fold(w)(v => w.option("txnAppId", "app").option("txnVersion", v)).save(path)
    }
    append(2)
    spark.sql(s"ALTER TABLE delta.`$path` SET TBLPROPERTIES ('a' = '2')")
    append(3, Some(1L))
    append(4, Some(2L))
    spark.sql(
      s"ALTER TABLE delta.`$path` SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')"
    )
    append(5, Some(7L))
    // Commit v at 1,000 + v seconds: a timestamp between two commits names the earlier one.
    (0L to 6L).foreach { v =>
      val f = new java.io.File(path, s"_delta_log/${FileNames.commitName(v)}")
      assert(f.setLastModified((1000L + v) * 1000L))
    }
    // Before and after the metadata change (v2), and the protocol change (v5).
    Seq(1L, 2L, 4L, 5L).foreach { v =>
      val at = new Timestamp((1000L + v) * 1000L + 500L)
      val (snap, jobs) =
        JobDescriptions.of(spark)(DeltaLog.forTable(spark, path).snapshotAsOf(at))
      assert(snap.version === v)
      assert(Oracle.view(spark, snap) === Oracle.reference(spark, path, Some(v)), s"version $v")
      assert(jobs.count(_.contains("read protocol and metadata")) === 1, jobs)
    }
  }

  test("the latest version by timestamp, and a remembered latest snapshot, are as by version") {
    val path = tempDir().resolve("t").toString
    (1 to 3).foreach(n => spark.range(n).write.format("delta").mode("append").save(path))
    val log = DeltaLog.forTable(spark, path)
    val latest = log.snapshot()
    def commitTime(v: Long) =
      new java.io.File(path, s"_delta_log/${FileNames.commitName(v)}").lastModified()
    assert(log.snapshotAsOf(new Timestamp(commitTime(2))) eq latest)
    val earlier = log.snapshotAsOf(new Timestamp(commitTime(0)))
    assert(Success(Oracle.view(spark, earlier)) === Success(Oracle.reference(spark, path, Some(0))))
  }
}
