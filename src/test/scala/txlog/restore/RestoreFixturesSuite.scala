package txlog.restore

import scala.util.{Failure, Success}

import txlog.{DeltaLog, Fixtures, Refusal, SparkSuite, TxlogException}
import txlog.oracle.{RecordedRestore, Recording}

/** RESTORE on copies of a handful of shared fixtures (written by delta-spark and Delta Kernel): to
  * version 0 and to the version before the latest, txlog's restore agrees with delta-spark's (see
  * [[RestoreTestKit.agreeWith]]), or both refuse for the same reason.
  *
  * The fixtures are read-only, so delta-spark's own restore of each is recorded by `make
  * oracle-record` ([[RecordedRestore]]); what txlog's restore wrote is read back by delta-spark
  * now, and one drawn restore is asked of delta-spark live and compared with its recording. `make
  * test` restores half of the tables, which half rotating by day ([[txlog.testing.Breadth]]: all 7
  * took 120 s of a 35-minute CI run), `make test-breadth` every one.
  */
class RestoreFixturesSuite extends SparkSuite with RestoreTestKit {

  private val restored =
    txlog.testing.Breadth.share(RecordedRestore.tables, 2, suiteName)(_ => false)

  restored.foreach { name =>
    test(s"$name: to version 0 and to the version before the latest") {
      assume(Fixtures.available, Fixtures.skipMessage)
      val fixture = Fixtures.root.resolve(name)
      val latest = DeltaLog.forTable(spark, fixture.toString).snapshot().version
      val targets = Recording.current.restoreTargets(name)
      assert(targets === RecordedRestore.targets(latest), "the recorded restore targets")
      targets.foreach { v =>
        Recording.current.restore(name, v) match {
          case Success(expected) =>
            val r = agreeWith(fixture, Left(v), rowsOf = v, expected)
            info(s"v$v: ${r.numRestoredFiles} restored, ${r.numRemovedFiles} removed")
          case Failure(ref) =>
            ourRestore(copyTable(fixture, "restore-fx"), Left(v)) match {
              case Failure(ours: TxlogException) =>
                Refusal.assertSame(ours, ref, s"$name v$v")
                info(s"v$v: both refuse")
              case ours => fail(s"v$v: delta-spark refuses ($ref), txlog gives $ours")
            }
        }
      }
    }
  }

  test("the recorded delta-spark restore agrees with delta-spark's restore now (1 drawn)") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val all = RecordedRestore.tables.flatMap(t => Recording.current.restoreTargets(t).map(t -> _))
    Recording.sample(all, 1, suiteName).foreach { case (name, v) =>
      info(s"seed ${Recording.seed} (TXLOG_ORACLE_SEED): $name v$v")
      (Recording.current.restore(name, v), RecordedRestore.live(spark, name, v)) match {
        case (Success(recorded), Success(now)) => assert(recorded === now, s"$name v$v")
        case (Failure(recorded), Failure(now)) =>
          assert(Refusal.ofDeltaSpark(recorded) === Refusal.ofDeltaSpark(now), s"$name v$v")
        case (recorded, now) => fail(s"$name v$v: recorded $recorded, delta-spark now $now")
      }
    }
  }
}
