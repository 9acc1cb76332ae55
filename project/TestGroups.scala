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

  /** Seconds per suite (simple class name): its time in the JUnit report of the clean-clone `make
    * test` run of 1c9de5a on 2026-12-03 (two forks beside the Python lane, `target/test-reports`,
    * 38 minutes), scaled to the share of its tests `make test` now runs (the tests of
    * txlog.testing.InTurn in turn, the Breadth suites' shares); suites under 5 s count as
    * [[Unlisted]].
    */
  val seconds: Map[String, Double] = Map(
    "ProcessWritersSuite" -> 212,
    "RestoreAgreementSuite" -> 208,
    "SqlParitySuite" -> 192,
    "ValidateSuite" -> 147,
    "VacuumAgreementSuite" -> 116,
    "CheckpointWriterSuite" -> 111,
    "RowLevelParitySuite" -> 103,
    "S3TablesSuite" -> 94,
    "TimeTravelAgreementSuite" -> 91,
    "RepairSuite" -> 86,
    "DistributedLogCompactionSuite" -> 85,
    "OptimizeSuite" -> 83,
    "MergeParitySuite" -> 83,
    "SqlCommandsParitySuite" -> 79,
    "CheckpointStatsSuite" -> 79,
    "RestoreFixturesSuite" -> 73,
    "DistributedReplayAgreementSuite" -> 69,
    "LogCompactionSuite" -> 65,
    "InteropMatrixSuite" -> 64,
    "CheckpointRoundTripSuite2" -> 64,
    "S3FaultsSuite" -> 63,
    "DataWriteSuite" -> 63,
    "VacuumSafetySuite" -> 62,
    "RowAgreementSuite" -> 62,
    "RepairFaultsSuite" -> 61,
    "ConflictCheckerSuite" -> 60,
    "RowDeleteSuite" -> 59,
    "SqlAlterParitySuite" -> 57,
    "CliSuite" -> 57,
    "CheckpointRoundTripSuite" -> 56,
    "FailClosedWriteSuite" -> 53,
    "VacuumFixturesSuite" -> 52,
    "S3ObjectStoreSuite" -> 51,
    "RowTrackingReadSuite" -> 50,
    "VersionChecksumSuite" -> 47,
    "DriverBudgetSuite" -> 44,
    "SchemaEvolutionSuite" -> 42,
    "CleanupFailClosedSuite" -> 39,
    "ListingFromHintSuite" -> 36,
    "ScanSuite" -> 35,
    "MetadataCleanupSuite" -> 29,
    "ChangesSuite" -> 28,
    "WriteRulesSuite" -> 24,
    "CommitTimelineSuite" -> 23,
    "DeletionVectorCommitSuite" -> 22,
    "RacingWritersSuite" -> 21,
    "CommitChecksumSuite" -> 21,
    "S3ConditionalPutSuite" -> 20,
    "ConflictCheckerDeletesSuite" -> 16,
    "TransactionSuite" -> 15,
    "S3OwnClientSuite" -> 13,
    "ChangeSchemaSuite" -> 12,
    "RestoreConcurrencySuite" -> 11,
    "RowTrackingRulesSuite" -> 10,
    "FixtureAgreementSuite" -> 10,
    "NamespaceRenameSuite" -> 9,
    "LiveRemovesSuite" -> 9,
    "DriverParquetSuite" -> 9,
    "CommitOnFixturesSuite" -> 9,
    "TimestampSnapshotSuite" -> 8,
    "SnapshotCacheSuite" -> 8,
    "LogSegmentSuite" -> 8,
    "CliContractSuite" -> 8,
    "TableContextSuite" -> 7,
    "SingleFileCheckpointSuite" -> 7,
    "VacuumPathsSuite" -> 6,
    "RepairTrustSuite" -> 6,
    "ReadFailureSuite" -> 5,
    "FileActionRulesSuite" -> 5,
    "DemoTableSuite" -> 5,
    "BadInputSuite" -> 5
  )
  val Unlisted = 5.0

  /** Suites `make test` runs in its second lane, after the Python suite and the Spark 3.5 run,
    * which otherwise end minutes before the Scala suites do: `-Dtxlog.testPart=tail` runs only
    * these, `-Dtxlog.testPart=main` every other suite, and without the property every suite runs.
    * ProcessWritersSuite spends most of its time waiting on the writer JVMs it starts;
    * VacuumAgreementSuite brings the lanes to about the same length (by [[seconds]], the first
    * lane's two forks about 27 minutes each, the second lane about 28;
    * DistributedLogCompactionSuite was here too until the parity suites took turns).
    */
  val tail: Set[String] = Set("ProcessWritersSuite", "VacuumAgreementSuite")

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
