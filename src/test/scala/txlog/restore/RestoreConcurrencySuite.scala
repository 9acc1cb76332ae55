package txlog.restore

import java.nio.file.Path

import txlog.{DeltaLog, SparkSuite, TxlogException}

/** RESTORE against a writer committing between its read and its commit (the commit step's progress
  * callback commits with delta-spark or txlog): a concurrent append is the transaction's conflict
  * error and nothing is committed; a commit that changes no file is retried over.
  */
class RestoreConcurrencySuite extends SparkSuite with RestoreTestKit {

  private lazy val table: Path = {
    val t = tempDir().resolve("concurrent")
    val session = spark
    import session.implicits._
    Seq(1, 2).toDF("id").write.format("delta").save(t.toString)
    Seq(3).toDF("id").write.format("delta").mode("append").save(t.toString)
    spark.sql(s"DELETE FROM delta.`$t` WHERE id = 1")
    t
  }

  private def restoreWhileCommitting(t: Path)(concurrent: => Unit): txlog.RestoreResult =
    DeltaLog
      .forTable(spark, t.toString)
      .restoreWith(
        Restore.Options(Some(0L), None, force = false, dryRun = false),
        step => if (step == "commit") concurrent
      )

  test("a concurrent append fails the restore with CONCURRENT_APPEND; nothing is committed") {
    val t = copyTable(table, "restore-race")
    val session = spark
    import session.implicits._
    val e = intercept[TxlogException] {
      restoreWhileCommitting(t) {
        Seq(9).toDF("id").write.format("delta").mode("append").save(t.toString)
      }
    }
    assert(e.errorClass === "CONCURRENT_APPEND", e.getMessage)
    val (op, _, _) = lastCommit(t)
    assert(op === "WRITE")
    assert(rows(t).contains("[9]"))
  }

  test("a concurrent commit that changes no file is retried over") {
    val t = copyTable(table, "restore-retry")
    val ref = copyTable(table, "restore-retry-ref")
    val r = restoreWhileCommitting(t) {
      DeltaLog.forTable(spark, t.toString).startTransaction().commit("VACUUM START")
    }
    assert(r.version === Some(DeltaLog.forTable(spark, t.toString).snapshot().version))
    assert(refRestore(ref, Left(0L)).get === metricsOf(r))
    assert(rows(t) === rows(t, Some(0L)))
    assert(lastCommit(t)._1 === "RESTORE")
  }
}
