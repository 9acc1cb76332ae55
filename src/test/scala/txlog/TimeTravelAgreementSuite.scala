package txlog

import java.sql.Timestamp

import scala.util.{Failure, Success, Try}

/** Time travel resolves as delta-spark resolves it on the multi-version fixtures: every version
  * gives the same snapshot (delta-spark's as recorded, [[txlog.oracle.Recording]], a sample re-run
  * live), and timestamps before, at, between and after commits pick the same version (or both
  * refuse), asked of delta-spark now: they depend on the commit files' modification times, which
  * differ in every copy of the fixtures.
  */
class TimeTravelAgreementSuite extends SparkSuite with txlog.oracle.LiveSample {
  private val multiVersion = txlog.testing.Breadth
    .fixtures(txlog.oracle.RecordOracles.timeTravelTables(Fixtures.tables), suiteName)

  if (!Fixtures.available) test("time travel agreement")(cancel(Fixtures.skipMessage))

  multiVersion.foreach { name =>
    test(s"every version agrees with delta-spark: $name") {
      val log = DeltaLog.forTable(spark, Fixtures.path(name))
      val latest = log.snapshot().version
      val listing = txlog.log.LogListing.list(log.table)
      (listing.earliestVersion.get to latest).foreach { v =>
        val ours = Try(Oracle.txlog(spark, Fixtures.path(name), Some(v)))
        (ours, Oracle.fixtureReference(name, Some(v))) match {
          case (Success(ours), Success(ref)) => assert(ours === ref, s"version $v")
          case (Failure(ours), Failure(ref)) => Refusal.assertSame(ours, ref, s"version $v")
          case (ours, ref)                   => fail(s"version $v: txlog $ours, delta-spark $ref")
        }
      }
    }

    test(s"timestamps resolve as in delta-spark: $name") {
      assertTimestampsAgree(Fixtures.path(name))
    }
  }

  if (Fixtures.available) {
    sampleLive(
      multiVersion.flatMap(t =>
        txlog.oracle.Recording.current.versionsOf(t).map(v => t -> Some(v))
      ),
      6
    )
  }

  test("out-of-order commit file times are made monotonic as delta-spark does") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val table = Fixtures.copy("golden/time-travel-start-start20-start40", tempDir())
    // v0 at 1,000 s, v1 at 3,000 s, v2 at 2,000 s (before v1: adjusted to v1 + 1 ms)
    setCommitTimes(table.toString, Seq(1000000L, 3000000L, 2000000L))
    assertTimestampsAgree(table.toString)
    val log = DeltaLog.forTable(spark, table.toString)
    assert(log.snapshotAsOf(new Timestamp(2500000L)).version === 0)
    assert(log.snapshotAsOf(new Timestamp(3000001L)).version === 2)
  }

  test("in-commit timestamps, enabled at creation and enabled later, resolve as in delta-spark") {
    val fromStart = tempDir().resolve("ict").toString
    spark.sql(
      s"CREATE TABLE delta.`$fromStart` (id LONG) USING delta " +
        "TBLPROPERTIES ('delta.enableInCommitTimestamps' = 'true')"
    )
    (1 to 3).foreach { i =>
      Thread.sleep(20);
      spark
        .range(i)
        .write
        .format("delta")
        .mode("append")
        .save(fromStart)
    }
    val later = tempDir().resolve("ict-later").toString
    (1 to 2).foreach { i => spark.range(i).write.format("delta").mode("append").save(later) }
    spark.sql(
      s"ALTER TABLE delta.`$later` SET TBLPROPERTIES " +
        "('delta.enableInCommitTimestamps' = 'true')"
    )
    (1 to 2).foreach { i =>
      Thread.sleep(20);
      spark
        .range(i)
        .write
        .format("delta")
        .mode("append")
        .save(later)
    }
    // File times far in the future: only in-commit timestamps can resolve these correctly.
    setCommitTimes(fromStart, Seq.fill(4)(4000000000000L))
    Seq(fromStart, later).foreach(assertTimestampsAgree)
    val snap = DeltaLog.forTable(spark, fromStart).snapshot()
    assert(snap.timestamp < 4000000000000L)
  }

  private def setCommitTimes(table: String, times: Seq[Long]): Unit =
    times.zipWithIndex.foreach { case (t, v) =>
      val f = new java.io.File(table, s"_delta_log/${txlog.protocol.FileNames.commitName(v)}")
      assert(f.setLastModified(t))
    }

  private def assertTimestampsAgree(path: String): Unit =
    Oracle.timestampAnswers(spark, path).foreach { case (ts, ours, theirs) =>
      (ours, theirs) match {
        case (Success(a), Success(b)) => assert(a === b, s"at $ts (${ts.getTime})")
        case (Failure(ours), Failure(ref)) =>
          Refusal.assertSame(ours, ref, s"at $ts (${ts.getTime})")
        case _ => fail(s"at $ts (${ts.getTime}): txlog $ours, delta-spark $theirs")
      }
    }
}
