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

  /** Seconds per suite (simple class name): its time in the JUnit report of a `make test` run of
    * the default line on 2026-11-26 at 54dd423 (two forks beside the Python lane,
    * `target/test-reports`); the suites added since, as timed alone, and ConflictCheckerSuite's
    * two halves as half of its time.
    */
  val seconds: Map[String, Double] = Map(
    "CheckpointRoundTripSuite" -> 295,
    "CheckpointRoundTripSuite2" -> 293,
    "RestoreAgreementSuite" -> 284,
    "ProcessWritersSuite" -> 255,
    "DistributedReplayAgreementSuite" -> 189,
    "ValidateSuite" -> 181,
    "DistributedLogCompactionSuite" -> 148,
    "InteropMatrixSuite" -> 144,
    "RepairSuite" -> 131,
    "VacuumFixturesSuite" -> 80,
    "VacuumAgreementSuite" -> 76,
    "RestoreFixturesSuite" -> 57,
    "CheckpointWriterSuite" -> 45,
    "S3TablesSuite" -> 38,
    "TimeTravelAgreementSuite" -> 37,
    "CommitTimelineSuite" -> 33,
    "S3ObjectStoreSuite" -> 33,
    "RepairFaultsSuite" -> 29,
    "ListingFromHintSuite" -> 29,
    "VersionChecksumSuite" -> 28,
    "VacuumSafetySuite" -> 28,
    "DriverBudgetSuite" -> 27,
    "CliSuite" -> 24,
    "LogCompactionSuite" -> 23,
    "CleanupFailClosedSuite" -> 22,
    "MetadataCleanupSuite" -> 22,
    "RacingWritersSuite" -> 20,
    "ConflictCheckerSuite" -> 18,
    "ConflictCheckerDeletesSuite" -> 18,
    "FileActionRulesSuite" -> 15,
    "TransactionSuite" -> 15,
    "FixtureAgreementSuite" -> 13,
    "SnapshotCacheSuite" -> 11,
    "CommitOnFixturesSuite" -> 11,
    "RestoreConcurrencySuite" -> 11,
    "CommitChecksumSuite" -> 10,
    "StagedInputsSuite" -> 10,
    "CliContractSuite" -> 8,
    "RowTrackingRulesSuite" -> 22,
    "MetadataRulesSuite" -> 8,
    "TableContextSuite" -> 20,
    "S3FaultsSuite" -> 35,
    "TxlogConfSuite" -> 10
  )
  val Unlisted = 5.0

  /** Suites `make test` runs in its second lane, after the Python suite and the Spark 3.5 run,
    * which otherwise end minutes before the Scala suites do: `-Dtxlog.testPart=tail` runs only
    * these, `-Dtxlog.testPart=main` every other suite, and without the property every suite runs.
    * ProcessWritersSuite spends most of its time waiting on the writer JVMs it starts; the two
    * others bring the lanes to about the same length (in the run of e0f6a7e the second lane
    * ended 2:40 before the first, and the cluster test's settings took about 2 minutes more off
    * the Python suite).
    */
  val tail: Set[String] =
    Set("ProcessWritersSuite", "DistributedLogCompactionSuite", "VacuumAgreementSuite")

  /** `names` narrowed to the part `-Dtxlog.testPart` names (main or tail), or all of them. */
  def selected(names: Seq[String]): Seq[String] = sys.props.get("txlog.testPart") match {
    case Some("tail") => names.filter(n => tail(simple(n)))
    case Some("main") => names.filterNot(n => tail(simple(n)))
    case Some(other) =>
      sys.error(s"-Dtxlog.testPart=$other: use main or tail (or leave it out for every suite)")
    case None => names
  }

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
