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

  /** Seconds per suite (simple class name): its time in the JUnit report of a `make test` run of the
    * default line on 2026-11-26 at 46c287d (two forks beside the Python lane,
    * `target/test-reports`).
    */
  val seconds: Map[String, Double] = Map(
    "CheckpointRoundTripSuite2" -> 341,
    "CheckpointRoundTripSuite" -> 324,
    "RestoreAgreementSuite" -> 278,
    "ProcessWritersSuite" -> 262,
    "ValidateSuite" -> 190,
    "InteropMatrixSuite" -> 146,
    "DistributedLogCompactionSuite" -> 142,
    "DistributedReplayAgreementSuite" -> 117,
    "RepairSuite" -> 108,
    "VacuumFixturesSuite" -> 101,
    "RestoreFixturesSuite" -> 80, // 330 before delta-spark's restores were recorded
    "VacuumAgreementSuite" -> 64,
    "CheckpointWriterSuite" -> 42,
    "S3TablesSuite" -> 38,
    "MetadataCleanupSuite" -> 32,
    "S3ObjectStoreSuite" -> 31,
    "TimeTravelAgreementSuite" -> 30,
    "ListingFromHintSuite" -> 27,
    "VacuumSafetySuite" -> 24,
    "ConflictCheckerSuite" -> 24,
    "VersionChecksumSuite" -> 23,
    "RacingWritersSuite" -> 23,
    "LogCompactionSuite" -> 23,
    "DriverBudgetSuite" -> 20,
    "CliSuite" -> 19,
    "CleanupFailClosedSuite" -> 19,
    "CommitTimelineSuite" -> 17,
    "VacuumPathsSuite" -> 15,
    "CommitChecksumSuite" -> 12,
    "CliContractSuite" -> 15,
    "RepairFaultsSuite" -> 20
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
