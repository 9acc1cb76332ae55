/** How the test suites are split between forked JVMs that run at the same time.
  *
  * Each JVM runs its suites one after the other, and no suite depends on another (temporary
  * directories, free ports). The number of JVMs is `-Dtxlog.testForks=N`: `make test-scala` and
  * `make test` pass TEST_FORKS, 1 by default; without the property, one JVM runs every suite. On 2
  * cores one JVM is faster: each JVM compiles the same Spark code again (the JIT took half of a test
  * JVM's CPU, 127 s of the 3 suites' 238 s), and a JVM of local[2] sessions alone keeps 1.7 cores
  * busy (6 suites: 248 s, 411 s of CPU in one JVM; 280 s, 550 s in two).
  *
  * Suites are dealt out longest first, each to the group with the least time so far (the times are
  * rough seconds from a CI run; a suite not listed counts as [[Unlisted]]), so the groups end at
  * about the same time. A stale table only costs balance, never coverage.
  */
object TestGroups {
  val forks: Int = sys.props.get("txlog.testForks").map(_.toInt).getOrElse(1).max(1)

  /** Seconds per suite (simple class name): the mean of its times in the JUnit reports of the
    * clean-clone `make test` runs of f2d58af and e215879 on 2026-12-03 (two forks beside the
    * Python lane, `target/test-reports`, 36 and 34 minutes; the same suite took up to 1.7 times
    * longer in one run than in the other, most where it was the first of its JVM), scaled to the
    * share of its tests `make test` now runs (the tests of txlog.testing.InTurn in turn, the
    * Breadth suites' shares; the second run's alone for the suites whose share changed between
    * them; for the suites that took more turns on 2026-12-03 afternoon, that figure scaled by the
    * share of its time the tests still run every time take); suites under 5 s count as
    * [[Unlisted]].
    */
  val seconds: Map[String, Double] = Map(
    "ValidateSuite" -> 188,
    "CheckpointWriterSuite" -> 152,
    "ProcessWritersSuite" -> 150,
    "CheckpointStatsSuite" -> 130,
    "VacuumAgreementSuite" -> 117,
    "OptimizeSuite" -> 110,
    "TimeTravelAgreementSuite" -> 103,
    "DistributedLogCompactionSuite" -> 96,
    "SqlAlterParitySuite" -> 90,
    "RowAgreementSuite" -> 87,
    "DataWriteSuite" -> 80,
    "S3TablesSuite" -> 79,
    "RestoreFixturesSuite" -> 70,
    "VersionChecksumSuite" -> 68,
    "LogCompactionSuite" -> 66,
    "RepairSuite" -> 65,
    "ConflictCheckerSuite" -> 63,
    "RowLevelParitySuite" -> 95,
    "DmlRandomParitySuite" -> 60,
    "DmlApiParitySuite" -> 45,
    "GeneratedDmlParitySuite" -> 40,
    "IdentityColumnsSuite" -> 45,
    "MergeIntoParitySuite" -> 20,
    // measured on this machine, 2026-12-05, one JVM with the other streaming suite (the source's
    // 2026-12-06, in `make test`, with half its heaviest tests in turn: about 90)
    "StreamSourceParitySuite" -> 90,
    "StreamSinkParitySuite" -> 50,
    "DmlRaceSuite" -> 35,
    "CliSuite" -> 60,
    "VacuumFixturesSuite" -> 60,
    "DistributedReplayAgreementSuite" -> 59,
    "FailClosedWriteSuite" -> 58,
    "ScanSuite" -> 58,
    "MergeParitySuite" -> 70,
    "SqlCommandsParitySuite" -> 53,
    "RowTrackingReadSuite" -> 52,
    "RepairFaultsSuite" -> 50,
    "VacuumSafetySuite" -> 48,
    "InteropMatrixSuite" -> 46,
    "CommitTimelineSuite" -> 45,
    "SqlParitySuite" -> 43,
    "CheckpointRoundTripSuite2" -> 41,
    "S3ObjectStoreSuite" -> 41,
    "S3FaultsSuite" -> 39,
    "ChangesSuite" -> 38,
    "ListingFromHintSuite" -> 38,
    "MetadataCleanupSuite" -> 37,
    "SchemaEvolutionSuite" -> 35,
    "CleanupFailClosedSuite" -> 30,
    "DriverBudgetSuite" -> 30,
    "DriverFileListSuite" -> 13,
    "RestoreAgreementSuite" -> 25,
    "S3ConditionalPutSuite" -> 24,
    "CheckpointRoundTripSuite" -> 22,
    "RowDeleteSuite" -> 22,
    "ConflictCheckerDeletesSuite" -> 20,
    "DeletionVectorCommitSuite" -> 20,
    "RestoreConcurrencySuite" -> 19,
    "WriteRulesSuite" -> 19,
    "ChangeSchemaSuite" -> 18,
    "CommitChecksumSuite" -> 18,
    "RacingWritersSuite" -> 17,
    "S3OwnClientSuite" -> 16,
    "LiveRemovesSuite" -> 15,
    "TransactionSuite" -> 14,
    "DriverParquetSuite" -> 13,
    "CliContractSuite" -> 11,
    "FixtureAgreementSuite" -> 11,
    "RowTrackingRulesSuite" -> 11,
    "CommitOnFixturesSuite" -> 10,
    "RepairTrustSuite" -> 9,
    "SingleFileCheckpointSuite" -> 9,
    "SnapshotCacheSuite" -> 9,
    "TableContextSuite" -> 9,
    "BadInputSuite" -> 8,
    "LogSegmentSuite" -> 8,
    "PostCommitSuite" -> 8,
    "ReadFailureSuite" -> 8,
    "TimestampSnapshotSuite" -> 8,
    "NamespaceRenameSuite" -> 7,
    "CompactionTrustSuite" -> 6,
    "DemoTableSuite" -> 6,
    "DescribeSuite" -> 6,
    "FileActionRulesSuite" -> 6,
    "MetadataRulesSuite" -> 6,
    "WriterRulesSuite" -> 5
  )
  val Unlisted = 5.0

  /** The suites of the part `-Dtxlog.testPart` names, as groups of one JVM each.
    *
    * `make test` runs two parts, one per lane, whose JVMs share one queue of suites
    * (txlog.testing.Claimed: the first JVM to reach a suite runs it): `main`, the first lane,
    * takes them longest first in [[forks]] groups from the start; `tail`, the second lane after its
    * Python suite and Spark 3.5 run, in one JVM from the shortest, until the two meet. So the
    * lanes end together however long the Python lane took (8 minutes one day, 13 the next, as
    * the cluster tests take turns), where a fixed split left one lane idle for minutes. Without
    * the property, every suite in [[forks]] groups.
    */
  def groups(names: Seq[String]): Seq[Seq[String]] = sys.props.get("txlog.testPart") match {
    case Some("tail")          => split(names, 1).map(_.reverse)
    case Some("main") | None   => split(names)
    case Some(other) =>
      sys.error(s"-Dtxlog.testPart=$other: use main or tail (or leave it out for every suite)")
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
