/** How the test suites are split between forked JVMs that run at the same time.
  *
  * The Spark suites spend part of their time waiting (job scheduling, file system calls, child
  * processes), so two JVMs of local[2] sessions may finish sooner than one even on 2 cores; each
  * JVM runs its suites one after the other, and no suite depends on another (temporary directories,
  * free ports). The number of JVMs is `-Dtxlog.testForks=N`: `make test-scala` passes its
  * TEST_FORKS (2); without the property, one JVM runs every suite.
  *
  * Suites are dealt out longest first, each to the group with the least time so far (the times are
  * rough seconds from a CI run; a suite not listed counts as [[Unlisted]]), so the groups end at
  * about the same time. A stale table only costs balance, never coverage.
  */
object TestGroups {
  val forks: Int = sys.props.get("txlog.testForks").map(_.toInt).getOrElse(1).max(1)

  /** Seconds per suite (simple class name): the sum of its tests' times in a `make test` run of the
    * default line on 2026-11-25 (two forks beside the Python lane), with delta-spark's answers on
    * the fixtures read from the recording (src/test/resources/oracle).
    */
  val seconds: Map[String, Double] = Map(
    "CheckpointRoundTripSuite" -> 294,
    "RestoreFixturesSuite" -> 212,
    "CheckpointRoundTripSuite2" -> 164,
    "ProcessWritersSuite" -> 110,
    "RestoreAgreementSuite" -> 110,
    "RepairSuite" -> 98,
    "ValidateSuite" -> 85,
    "DistributedLogCompactionSuite" -> 76,
    "DistributedReplayAgreementSuite" -> 68,
    "VacuumFixturesSuite" -> 55,
    "InteropMatrixSuite" -> 54,
    "VacuumAgreementSuite" -> 48,
    "CheckpointWriterSuite" -> 29,
    "TimeTravelAgreementSuite" -> 28,
    "S3TablesSuite" -> 27,
    "ListingFromHintSuite" -> 25,
    "ConflictCheckerSuite" -> 23,
    "VersionChecksumSuite" -> 23,
    "S3ObjectStoreSuite" -> 23,
    "LogCompactionSuite" -> 23,
    "VacuumSafetySuite" -> 19,
    "DriverBudgetSuite" -> 18,
    "RacingWritersSuite" -> 16,
    "CliSuite" -> 15,
    "CommitTimelineSuite" -> 15,
    "MetadataCleanupSuite" -> 14
  )
  val Unlisted = 5.0

  /** Suites that must share a JVM (none since delta-spark's fixture snapshots are recorded). */
  val together: Seq[Set[String]] = Seq.empty

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
