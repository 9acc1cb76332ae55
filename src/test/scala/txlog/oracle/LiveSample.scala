package txlog.oracle

import scala.util.{Failure, Success}

import txlog.{Fixtures, Oracle, Refusal, SparkSuite}

/** A suite that reads recorded delta-spark answers ([[Recording]]) re-runs a sample of them live,
  * so that a recording that no longer tells what delta-spark says fails somewhere.
  */
trait LiveSample { self: SparkSuite =>

  /** Registers a test asking delta-spark now for `n` of `answers` (table, version; None for the
    * latest) drawn with [[Recording.seed]], each compared with its recording.
    */
  def sampleLive(answers: => Seq[(String, Option[Long])], n: Int): Unit =
    test(s"recorded delta-spark answers agree with delta-spark now ($n drawn)") {
      assume(Fixtures.available, Fixtures.skipMessage)
      val drawn = Recording.sample(answers, n, suiteName)
      info(s"seed ${Recording.seed} (TXLOG_ORACLE_SEED): ${drawn.mkString(", ")}")
      drawn.foreach { case (table, version) =>
        val what = s"$table at ${version.fold("latest")("v" + _)}"
        val recordedAnswer = Oracle.fixtureReference(table, version)
        (recordedAnswer, Oracle.liveFixtureReference(spark, table, version)) match {
          case (Success(recorded), Success(now)) => assert(recorded === now, what)
          case (Failure(recorded), Failure(now)) =>
            assert(Refusal.ofDeltaSpark(recorded) === Refusal.ofDeltaSpark(now), what)
          case (recorded, now) => fail(s"$what: recorded $recorded, delta-spark now says $now")
        }
      }
    }
}
