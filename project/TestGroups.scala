/** How the test suites are split between forked JVMs that run at the same time.
  *
  * The Spark suites spend part of their time waiting (job scheduling, file system calls, child
  * processes), so two JVMs of local[2] sessions may finish sooner than one even on 2 cores; each
  * JVM runs its suites one after the other, and no suite depends on another (temporary
  * directories, free ports). The number of JVMs is `-Dtxlog.testForks=N`: `make test-scala`
  * passes its TEST_FORKS (2); without the property, one JVM runs every suite.
  *
  * Suites are dealt out longest first, each to the group with the least time so far (the times
  * are rough seconds from a CI run; a suite not listed counts as [[Unlisted]]), so the groups
  * end at about the same time. A stale table only costs balance, never coverage.
  */
object TestGroups {
  val forks: Int = sys.props.get("txlog.testForks").map(_.toInt).getOrElse(1).max(1)

  /** Seconds per suite (simple class name): the sum of its tests' times in the CI run of the
    * default line on 2026-11-25 (FixtureAgreementSuite also reads the shared delta-spark
    * snapshots, about 90 s, when it runs first).
    */
  val seconds: Map[String, Double] = Map(
    "CheckpointRoundTripSuite" -> 523,
    "TimeTravelAgreementSuite" -> 141,
    "RestoreFixturesSuite" -> 137,
    "ProcessWritersSuite" -> 113,
    "DistributedReplayAgreementSuite" -> 110,
    "ValidateSuite" -> 106,
    "FixtureAgreementSuite" -> 95,
    "RepairSuite" -> 87,
    "DistributedLogCompactionSuite" -> 80,
    "RestoreAgreementSuite" -> 77,
    "InteropMatrixSuite" -> 59,
    "VacuumFixturesSuite" -> 57,
    "VacuumAgreementSuite" -> 55,
    "CheckpointWriterSuite" -> 35,
    "ConflictCheckerSuite" -> 29,
    "VersionChecksumSuite" -> 27,
    "ListingFromHintSuite" -> 26,
    "LogCompactionSuite" -> 26,
    "S3TablesSuite" -> 26,
    "DriverBudgetSuite" -> 25,
    "S3ObjectStoreSuite" -> 25,
    "VacuumSafetySuite" -> 25,
    "MetadataCleanupSuite" -> 18,
    "RacingWritersSuite" -> 18,
    "CliSuite" -> 16,
    "CommitTimelineSuite" -> 16
  )
  val Unlisted = 5.0

  /** Suites that go to the same JVM: they share what one of them reads first (the delta-spark
    * snapshots of the fixtures, txlog.Oracle.fixtureReference).
    */
  val together: Seq[Set[String]] = Seq(
    Set("FixtureAgreementSuite", "DistributedReplayAgreementSuite", "CheckpointRoundTripSuite")
  )

  private def simple(name: String) = name.split('.').last

  /** The suite names split into at most `n` groups of about equal time, longest suites first. */
  def split(names: Seq[String], n: Int = forks): Seq[Seq[String]] = {
    def cost(name: String) = seconds.getOrElse(simple(name), Unlisted)
    val units = names.distinct.groupBy(s => together.indexWhere(_(simple(s)))).toSeq.flatMap {
      case (-1, alone) => alone.map(Seq(_))
      case (_, bound)  => Seq(bound.sortBy(s => (-cost(s), s)))
    }
    val groups = Array.fill(n.max(1))(Vector.empty[String])
    val load = Array.fill(n.max(1))(0.0)
    units.sortBy(u => (-u.map(cost).sum, u.head)).foreach { u =>
      val i = load.indices.minBy(load(_))
      groups(i) ++= u
      load(i) += u.map(cost).sum
    }
    groups.toSeq.filter(_.nonEmpty)
  }
}
