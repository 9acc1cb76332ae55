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
    * test` run of f2d58af on 2026-12-03 (two forks beside the Python lane, `target/test-reports`,
    * 36 minutes), scaled to the share of its tests `make test` now runs (the tests of
    * txlog.testing.InTurn in turn, the Breadth suites' shares); suites under 5 s count as
    * [[Unlisted]].
    */
  val seconds: Map[String, Double] = Map(
    "RestoreAgreementSuite" -> 100,
    "ValidateSuite" -> 202,
    "SqlParitySuite" -> 120,
    "ProcessWritersSuite" -> 179,
    "CheckpointWriterSuite" -> 156,
    "VacuumAgreementSuite" -> 125,
    "CheckpointStatsSuite" -> 125,
    "S3TablesSuite" -> 122,
    "SqlAlterParitySuite" -> 100,
    "OptimizeSuite" -> 111,
    "TimeTravelAgreementSuite" -> 101,
    "DataWriteSuite" -> 83,
    "DistributedLogCompactionSuite" -> 82,
    "RowLevelParitySuite" -> 79,
    "CliSuite" -> 77,
    "RowAgreementSuite" -> 76,
    "RestoreFixturesSuite" -> 74,
    "RepairSuite" -> 73,
    "RepairFaultsSuite" -> 73,
    "LogCompactionSuite" -> 71,
    "VersionChecksumSuite" -> 69,
    "DistributedReplayAgreementSuite" -> 62,
    "SqlCommandsParitySuite" -> 61,
    "MergeParitySuite" -> 60,
    "FailClosedWriteSuite" -> 59,
    "SchemaEvolutionSuite" -> 58,
    "RowTrackingReadSuite" -> 58,
    "ScanSuite" -> 54,
    "VacuumFixturesSuite" -> 53,
    "ConflictCheckerSuite" -> 53,
    "VacuumSafetySuite" -> 50,
    "DriverBudgetSuite" -> 50,
    "CommitTimelineSuite" -> 50,
    "InteropMatrixSuite" -> 47,
    "CheckpointRoundTripSuite2" -> 45,
    "S3FaultsSuite" -> 43,
    "S3ObjectStoreSuite" -> 42,
    "MetadataCleanupSuite" -> 39,
    "CleanupFailClosedSuite" -> 37,
    "ListingFromHintSuite" -> 34,
    "ChangesSuite" -> 34,
    "RowDeleteSuite" -> 28,
    "DeletionVectorCommitSuite" -> 26,
    "ConflictCheckerDeletesSuite" -> 26,
    "CheckpointRoundTripSuite" -> 26,
    "ChangeSchemaSuite" -> 22,
    "WriteRulesSuite" -> 18,
    "S3ConditionalPutSuite" -> 18,
    "RestoreConcurrencySuite" -> 17,
    "CommitChecksumSuite" -> 16,
    "S3OwnClientSuite" -> 14,
    "RacingWritersSuite" -> 13,
    "TransactionSuite" -> 12,
    "DriverParquetSuite" -> 11,
    "LiveRemovesSuite" -> 10,
    "TableContextSuite" -> 9,
    "SingleFileCheckpointSuite" -> 9,
    "FixtureAgreementSuite" -> 9,
    "CommitOnFixturesSuite" -> 9,
    "CliContractSuite" -> 9,
    "SnapshotCacheSuite" -> 8,
    "RowTrackingRulesSuite" -> 8,
    "TimestampSnapshotSuite" -> 7,
    "RepairTrustSuite" -> 7,
    "ReadFailureSuite" -> 7,
    "PostCommitSuite" -> 7,
    "BadInputSuite" -> 7,
    "NamespaceRenameSuite" -> 6,
    "MetadataRulesSuite" -> 6,
    "LogSegmentSuite" -> 6,
    "FileActionRulesSuite" -> 6,
    "DemoTableSuite" -> 6,
    "CompactionTrustSuite" -> 6,
    "VacuumPathsSuite" -> 5,
    "LogStoreSuite" -> 5,
    "ExclusiveCreateSuite" -> 5,
    "DescribeSuite" -> 5
  )
  val Unlisted = 5.0

  /** Suites `make test` runs in its second lane, after the Python suite and the Spark 3.5 run,
    * which otherwise end minutes before the Scala suites do: `-Dtxlog.testPart=tail` runs only
    * these, `-Dtxlog.testPart=main` every other suite, and without the property every suite runs.
    * ProcessWritersSuite spends most of its time waiting on the writer JVMs it starts;
    * VacuumAgreementSuite brings the lanes to about the same length (in the run of f2d58af the
    * first lane took 36 minutes, the second 32; by [[seconds]] the first lane's forks now hold
    * about 31 minutes of suites each;
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
