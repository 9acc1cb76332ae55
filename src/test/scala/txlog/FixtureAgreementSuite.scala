package txlog

import scala.util.{Failure, Success, Try}

/** Every fixture table must yield the same snapshot through txlog as through delta-spark (version,
  * protocol, metadata, live files, tombstones), or both must refuse it for the same reason
  * ([[Refusal]]). delta-spark's answers are the recorded ones ([[txlog.oracle.Recording]]), a
  * sample of them re-run live.
  */
class FixtureAgreementSuite extends SparkSuite with txlog.oracle.LiveSample {
  private var agree, bothRefuse = 0

  /** Small checkpoints are read on the driver (DriverCheckpoint); here, a failure to read an intact
    * one fails the test instead of falling back to Spark's reader.
    */
  override def extraConf: Map[String, String] =
    Map(txlog.replay.DriverCheckpoint.StrictConf -> "true")

  /** The fixtures this suite checks: all of them, or today's share of them on a line run with
    * `-Dtxlog.fixtureShare` ([[txlog.testing.Breadth.fixtures]]).
    */
  protected def tables: Seq[String] = txlog.testing.Breadth.fixtures(Fixtures.tables, suiteName)

  /** How many recorded answers are asked of delta-spark again. */
  protected def liveSample: Int = 3

  if (!Fixtures.available) {
    test("fixture agreement with delta-spark")(cancel(Fixtures.skipMessage))
  }

  tables.foreach { name =>
    test(s"latest snapshot agrees with delta-spark: $name") {
      val ours = Try(Oracle.txlog(spark, Fixtures.path(name), None))
      (ours, Oracle.fixtureReference(name)) match {
        case (Success(ours), Success(ref)) =>
          assert(ours.version === ref.version)
          assert(ours.protocol === ref.protocol)
          assert(ours.metadata === ref.metadata)
          assert(ours.live.size === ref.live.size)
          assert(ours.live === ref.live)
          assert(ours.tombstones === ref.tombstones)
          assert(ours.txns === ref.txns)
          assert(ours.domains === ref.domains)
          // Counts come from their own (lean) read of the log: they must agree too.
          val s = DeltaLog.forTable(spark, Fixtures.path(name)).snapshot(ours.version)
          val live = ref.live.toSeq
          val expected = (live.size.toLong, live.map(_._3).sum, ref.tombstones.size.toLong)
          assert((s.numFiles, s.sizeInBytes, s.numTombstones) === expected)
          agree += 1
        case (Failure(ours), Failure(ref)) =>
          val why = Refusal.assertSame(ours, ref, name)
          info(s"both refuse as $why; txlog says $ours; delta-spark says $ref")
          bothRefuse += 1
        case (Failure(ours), Success(ref)) =>
          fail(s"txlog refuses a table delta-spark reads at v${ref.version}: $ours", ours)
        case (Success(ours), Failure(ref)) =>
          fail(s"txlog reads v${ours.version} of a table delta-spark refuses: $ref")
      }
    }
  }

  if (Fixtures.available && liveSample > 0) sampleLive(tables.map(_ -> None), liveSample)

  override def afterAll(): Unit = {
    try {
      if (Fixtures.available) {
        info(
          s"fixture agreement: $agree agree, $bothRefuse both refuse, of " +
            s"${tables.size} tables"
        )
      }
    } finally super.afterAll()
  }
}

/** The same agreement with every commit read and reconciled by tasks (a window function and an
  * anti-join), as for tails too large for the driver. The setting is txlog's only.
  *
  * The tasks' work is the tail, the commits after the newest checkpoint: every fixture whose tail
  * has two commits or more (reconciled across commits) or that a replay refuses (the error must
  * come back typed from a task), and every third of the others (one commit or none after the
  * checkpoint: the same tasks over less): 82 of the 133 fixtures. `make test` replays a third of
  * them, which third rotating by day ([[txlog.testing.Breadth]]), and every one a replay refuses;
  * `make test-breadth` all 82. The distributed replay of a fixture costs ten times the driver's
  * (all 133 were 200 s of a CI run, the 82 were 146 s of a 35-minute one, half of them 103 s of a
  * 38-minute one). The recorded answers are re-asked of delta-spark by [[FixtureAgreementSuite]].
  */
class DistributedReplayAgreementSuite extends FixtureAgreementSuite {
  override def extraConf: Map[String, String] =
    super.extraConf + (txlog.replay.LogLineReader.LocalReadMaxBytesConf -> "0")

  override protected def tables: Seq[String] = {
    def refused(t: String) = Oracle.fixtureReference(t).isFailure
    val tasks = Fixtures.tables.zipWithIndex.collect {
      case (t, i) if Fixtures.tailCommits(t) >= 2 || refused(t) || i % 3 == 0 => t
    }
    txlog.testing.Breadth.share(tasks, 3, "DistributedReplayAgreementSuite")(refused)
  }

  override protected def liveSample: Int = 0
}
