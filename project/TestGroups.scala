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
    * the default line on 2026-11-26 at fdf93e1 (two forks beside the Python lane,
    * `target/test-reports`), the checkpoint round trips at three quarters of it (delta-spark reads
    * back fewer multi-part checkpoints since); suites under 5 s count as [[Unlisted]].
    */
  val seconds: Map[String, Double] = Map(
    "CheckpointRoundTripSuite2" -> 120, // since: a third of the fixtures (Breadth)
    "CheckpointRoundTripSuite" -> 100, // since: a third of the fixtures (Breadth)
    "ProcessWritersSuite" -> 230, // since: 8 commits per writer
    "ValidateSuite" -> 200, // since: a sixth of the fixtures (Breadth)
    "RestoreAgreementSuite" -> 130, // since: half its restores (Breadth)
    "DistributedReplayAgreementSuite" -> 80, // since: half of its 82 fixtures (Breadth)
    "InteropMatrixSuite" -> 80, // since: 4 of its 9 tables (Breadth)
    "DistributedLogCompactionSuite" -> 110, // since: half the ranges (Breadth)
    "VacuumAgreementSuite" -> 133,
    "VacuumFixturesSuite" -> 60, // since: 6 of its 11 fixtures (Breadth)
    "RestoreFixturesSuite" -> 70, // since: half its tables (Breadth)
    "RepairSuite" -> 95,
    "CheckpointWriterSuite" -> 84,
    "S3TablesSuite" -> 73,
    "TimeTravelAgreementSuite" -> 59,
    "RowAgreementSuite" -> 46, // added since: 46 s alone
    "ScanSuite" -> 30, // added since: 22-32 s alone
    "SqlCommandsParitySuite" -> 110, // added since: 127 s alone (delta VACUUM listing at 4 tasks)
    "SqlParitySuite" -> 150, // added since: 115-220 s alone at load 5-8 (session start included)
    "RowLevelParitySuite" -> 145, // added since: 130 s alone, + copy-on-write 15 s
    "RowDeleteSuite" -> 45, // added since: 24 s after RowLevelParitySuite, + copy-on-write
    "MergeParitySuite" -> 95, // added since: 83 s alone, + copy-on-write 8 s
    "SqlAlterParitySuite" -> 70, // added since: 58 s after other SQL suites, 168 s alone at load 8
    "ChangesSuite" -> 25, // added since: 17 s alone
    "DeletionVectorCommitSuite" -> 30, // added since: 105 s alone at load 9-12, most of it the
    // session start and delta-spark's first read and DELETE
    "RowTrackingReadSuite" -> 45, // added since: 99 s alone at load 11 on 2 cores
    "ChangeSchemaSuite" -> 10, // added since: 9 s after ChangesSuite (no session start)
    "DataWriteSuite" -> 60, // added since: 55 s alone, 34 s on Spark 3.5
    "OptimizeSuite" -> 70, // added since: about 2 minutes alone at load 5
    "WriteRulesSuite" -> 30, // added since: 35 s alone
    "FailClosedWriteSuite" -> 45, // added since: 40 s alone (session start included)
    "SchemaEvolutionSuite" -> 40, // added since: about 40 s alone (session start included)
    "CheckpointStatsSuite" -> 40, // added since: 40 s in CI
    "LogCompactionSuite" -> 56,
    "S3ObjectStoreSuite" -> 52,
    "S3FaultsSuite" -> 48,
    "S3ConditionalPutSuite" -> 35, // added since: 24 s alone
    "S3OwnClientSuite" -> 30, // added since: 26 s alone
    "NamespaceRenameSuite" -> 30, // added since: 25 s alone
    "RepairFaultsSuite" -> 45,
    "DriverBudgetSuite" -> 44,
    "VacuumSafetySuite" -> 43,
    "ConflictCheckerSuite" -> 41,
    "CleanupFailClosedSuite" -> 36,
    "CliSuite" -> 36,
    "VersionChecksumSuite" -> 34,
    "ListingFromHintSuite" -> 33,
    "MetadataCleanupSuite" -> 31,
    "TransactionSuite" -> 29,
    "CommitTimelineSuite" -> 25,
    "CommitChecksumSuite" -> 25,
    "RowTrackingRulesSuite" -> 25,
    "RacingWritersSuite" -> 24,
    "ConflictCheckerDeletesSuite" -> 20,
    "CommitOnFixturesSuite" -> 20,
    "FixtureAgreementSuite" -> 20,
    "CliContractSuite" -> 16,
    "RestoreConcurrencySuite" -> 16,
    "DriverParquetSuite" -> 14,
    "LogSegmentSuite" -> 13,
    "SnapshotCacheSuite" -> 13,
    "BadInputSuite" -> 11,
    "TableContextSuite" -> 10,
    "DescribeSuite" -> 9,
    "DemoTableSuite" -> 9,
    "SingleFileCheckpointSuite" -> 8,
    "FileActionRulesSuite" -> 8,
    "MetadataRulesSuite" -> 6,
    "PostCommitSuite" -> 5,
    "DistributedCompactionFidelitySuite" -> 5
  )
  val Unlisted = 5.0

  /** Suites `make test` runs in its second lane, after the Python suite and the Spark 3.5 run,
    * which otherwise end minutes before the Scala suites do: `-Dtxlog.testPart=tail` runs only
    * these, `-Dtxlog.testPart=main` every other suite, and without the property every suite runs.
    * ProcessWritersSuite spends most of its time waiting on the writer JVMs it starts; the two
    * others bring the lanes to about the same length (in the run of e0f6a7e the second lane ended
    * 2:40 before the first, and the cluster test's settings took about 2 minutes more off the
    * Python suite).
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
