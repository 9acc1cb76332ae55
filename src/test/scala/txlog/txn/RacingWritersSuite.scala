package txlog.txn

import java.util.concurrent.{Executors, TimeUnit}

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration._

import org.apache.spark.sql.functions.col

import txlog.{DeltaLog, Oracle, SparkSuite, TxlogException}

/** Writers racing on one table: every commit lands exactly once with contiguous versions, and true
  * logical conflicts get the typed error while disjoint ones succeed after retry.
  */
class RacingWritersSuite extends SparkSuite {
  import TxnTestKit._

  // The checkpoint every 10 commits is not what is tested here.
  private val props = Map("delta.checkpointInterval" -> "1000")

  test("8 threads x 25 blind appends: 200 commits, versions 1 to 200, each exactly once") {
    val dir = tempDir().resolve("t")
    DeltaLog.createTable(spark, dir.toString, schema, Seq("part"), props)
    val pool = Executors.newFixedThreadPool(8)
    implicit val ec: ExecutionContext = ExecutionContext.fromExecutor(pool)
    try {
      val writers = (0 until 8).map { w =>
        Future {
          val log = DeltaLog.forTable(spark, dir.toString)
          (0 until 25).map { i =>
            log.startTransaction().addFiles(adds(spark, Seq(s"w$w-$i"), s"p$w")).commit()
          }
        }
      }
      val results = Await.result(Future.sequence(writers), 15.minutes).flatten
      assert(results.forall(_.committed))
      assert(results.map(_.version).sorted === (1L to 200L))
      // Spec: one commit file per version; each commit's txnId appears once.
      val ids = (1L to 200L).map(v => commitLines(dir, v).head.get("commitInfo").get("txnId"))
      assert(ids.map(_.asText).distinct.size === 200)
      val ref = Oracle.reference(spark, dir.toString, None)
      assert(ref.version === 200L)
      assert(ref.live.size === 200)
    } finally {
      pool.shutdown(); pool.awaitTermination(1, TimeUnit.MINUTES)
    }
  }

  test("two transactions that read and remove the same file: one commits, one conflicts") {
    val dir = tempDir().resolve("t")
    val log = DeltaLog.createTable(spark, dir.toString, schema, Seq("part"), props)
    log.startTransaction().addFiles(adds(spark, Seq("x", "y"), "a")).commit()
    val t1 = DeltaLog.forTable(spark, dir.toString).startTransaction()
    val t2 = DeltaLog.forTable(spark, dir.toString).startTransaction()
    Seq(t1, t2).foreach { t =>
      val read = t.readFiles(col("path") === "x")
      t.removeFiles(read.select("path", "size", "partitionValues", "dataChange"))
    }
    assert(t1.commit().version === 2L)
    val e = intercept[TxlogException](t2.commit())
    // delta-spark raises ConcurrentDeleteReadException for a read file a winner removed.
    assert(e.errorClass === "CONCURRENT_DELETE_READ")
    assert(e.version === Some(2L))
    val ref = Oracle.reference(spark, dir.toString, None)
    assert(ref.version === 2L && ref.live.size === 1)
  }
}
