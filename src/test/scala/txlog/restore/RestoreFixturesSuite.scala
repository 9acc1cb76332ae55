package txlog.restore

import scala.util.{Failure, Success, Try}

import txlog.{DeltaLog, Fixtures, SparkSuite}

/** RESTORE on copies of a handful of shared fixtures (written by delta-spark and Delta Kernel): to
  * version 0 and to the version before the latest, txlog and delta-spark agree (see
  * [[RestoreTestKit.agree]]), or both refuse.
  */
class RestoreFixturesSuite extends SparkSuite with RestoreTestKit {

  private val tables = Seq(
    "golden/basic-with-inserts-deletes-checkpoint",
    "golden/basic-with-inserts-overwrite-restore",
    "golden/data-reader-escaped-chars",
    "golden/dv-partitioned-with-checkpoint",
    "golden/time-travel-partition-changes-b",
    "kernel/basic-dv-with-checkpoint",
    "spark/table-with-dv-small"
  )

  tables.foreach { name =>
    test(s"$name: to version 0 and to the version before the latest") {
      assume(Fixtures.available, Fixtures.skipMessage)
      val t = Fixtures.copy(name, tempDir())
      val latest = DeltaLog.forTable(spark, t.toString).snapshot().version
      Seq(0L, (latest - 1).max(0L)).distinct.filter(_ < latest).foreach { v =>
        Try(agree(t, Left(v), rowsOf = v)) match {
          case Success(r) =>
            info(s"v$v: ${r.numRestoredFiles} restored, ${r.numRemovedFiles} removed")
          case Failure(e: org.scalatest.exceptions.TestFailedException) => throw e
          case Failure(e) =>
            val ours = ourRestore(copyTable(t, "restore-fx"), Left(v))
            val ref = refRestore(copyTable(t, "restore-fx-ref"), Left(v))
            assert(ours.isFailure && ref.isFailure, s"v$v: txlog $ours, delta-spark $ref ($e)")
            info(s"v$v: both refuse")
        }
      }
    }
  }
}
