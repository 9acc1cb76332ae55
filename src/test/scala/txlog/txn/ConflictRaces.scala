package txlog.txn

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{EqualTo, Expression, Literal}
import org.apache.spark.sql.delta.{
  DeltaLog => RefLog,
  DeltaOperations,
  IsolatedTransactions,
  OptimisticTransaction
}
import org.apache.spark.sql.delta.actions.{Action, AddFile}
import org.apache.spark.sql.functions.col

import txlog.{DeltaLog, SparkSuite, TxlogException}
import txlog.log.TablePath
import txlog.protocol.CommitFile
import txlog.protocol.FileInfo

/** The race of [[ConflictCheckerSuite]] and [[ConflictCheckerDeletesSuite]]: delta-spark's
  * transactions on a table, the winner committed, then the loser's commit meeting it; txlog's
  * checker given the same read set, staged actions and the winner's commit file.
  */
trait ConflictRaces extends SparkSuite {

  /** delta-spark's exception (simple class name) -> txlog's error class. */
  protected val expectedClass = Map(
    "none" -> "none",
    "ConcurrentAppendException" -> "CONCURRENT_APPEND",
    "ConcurrentDeleteReadException" -> "CONCURRENT_DELETE_READ",
    "ConcurrentDeleteDeleteException" -> "CONCURRENT_DELETE_DELETE",
    "MetadataChangedException" -> "METADATA_CHANGED",
    "ProtocolChangedException" -> "PROTOCOL_CHANGED",
    "ConcurrentTransactionException" -> "CONCURRENT_TRANSACTION"
  )

  protected val part = UnresolvedAttribute.quoted("part")
  protected def partIs(v: String): Expression = EqualTo(part, Literal(v))
  protected val withStats = """{"numRecords":1,"minValues":{"id":1},"maxValues":{"id":1},""" +
    """"nullCount":{"id":0}}"""

  protected def add(path: String, p: String, stats: String = withStats): AddFile =
    AddFile(path, Map("part" -> p), 10L, 1L, dataChange = true, stats = stats)

  /** A partitioned table (id INT, part STRING) at `level`, holding a0 (part a) and b0 (part b).
    * Open-source delta-spark accepts only Serializable as a `delta.isolationLevel` value (its
    * default); WriteSerializable transactions come from [[IsolatedTransactions]].
    */
  protected def newTable(level: String, props: String = ""): String = {
    val dir = tempDir("conflict").resolve("t").toString
    val all = (if (level == "Serializable") Seq("'delta.isolationLevel' = 'Serializable'")
               else Nil) ++ Option(props).filter(_.nonEmpty)
    val tblProps = if (all.isEmpty) "" else all.mkString(" TBLPROPERTIES (", ", ", ")")
    spark.sql(
      s"CREATE TABLE delta.`$dir` (id INT, part STRING) USING delta PARTITIONED BY (part)" +
        tblProps
    )
    RefLog
      .forTable(spark, dir)
      .startTransaction()
      .commit(Seq(add("part=a/a0.parquet", "a"), add("part=b/b0.parquet", "b")), manual)
    dir
  }

  protected def manual = DeltaOperations.ManualUpdate

  /** A winner that reads nothing of interest, so its commit is not a blind append. */
  protected def notBlind(w: OptimisticTransaction): Unit = w.filterFiles(Seq(partIs("zzz")))

  /** Races `current` (reads, returns its staged actions) against `winner` in delta-spark; the read
    * version and the exception's simple class name ("none" when it committed).
    */
  protected def race(dir: String, level: String = "WriteSerializable")(
      current: OptimisticTransaction => Seq[Action]
  )(winners: (OptimisticTransaction => Seq[Action])*): (Long, String) = {
    val log = RefLog.forTable(spark, dir)
    val t = IsolatedTransactions.start(log, level)
    val readVersion = t.snapshot.version
    val staged = current(t)
    winners.foreach { winner =>
      val w = log.startTransaction()
      w.commit(winner(w), manual)
    }
    val outcome =
      try { t.commit(staged, manual); "none" }
      catch { case e: Exception => e.getClass.getSimpleName }
    (readVersion, outcome)
  }

  protected def files(dir: String, v: Long, pred: Column): DataFrame =
    DeltaLog.forTable(spark, dir).snapshot(v).allFiles.where(pred)

  protected def paths(ps: String*): DataFrame = {
    val session = spark
    import session.implicits._
    ps.toDF("path")
  }

  /** txlog's outcome: the error class check() raises against commit readVersion + 1, the same
    * whether the winner is read on the driver or (as a large one would be) by a Spark job.
    */
  protected def txlogOutcome(
      dir: String,
      level: IsolationLevel,
      read: ReadSet,
      staged: StagedSummary,
      numWinners: Int = 1,
      conflictAt: Int = 1
  ): String = {
    val table = TablePath.qualified(dir, spark.sessionState.newHadoopConf())
    val v = read.readVersion + conflictAt
    val commits = (1 to numWinners).map { i =>
      val w = read.readVersion + i
      CommitFile(w, FileInfo(table.fs.getFileStatus(new Path(table.logDir, f"$w%020d.json"))))
    }
    def outcome(): String =
      try {
        ConflictChecker.check(
          new txlog.table.TableContext(spark, table),
          level,
          read,
          staged,
          commits
        )
        "none"
      } catch {
        case e: TxlogException =>
          assert(e.version.contains(v), e.getMessage)
          assert(e.getMessage.contains(level.name) && e.getMessage.contains(s"commit $v"))
          if (fileConflicts(e.errorClass)) {
            assert(e.file.exists(f => e.getMessage.contains(f)), e.getMessage)
          }
          e.errorClass
      }
    val onDriver = outcome()
    val conf = "spark.txlog.replay.maxLocalReadBytes"
    spark.conf.set(conf, "0")
    val distributed =
      try outcome()
      finally spark.conf.unset(conf)
    assert(onDriver == distributed, "the winner read by a job")
    onDriver
  }

  protected val fileConflicts =
    Set("CONCURRENT_APPEND", "CONCURRENT_DELETE_READ", "CONCURRENT_DELETE_DELETE")

  protected def readSet(v: Long, preds: Seq[Column], read: Seq[DataFrame], whole: Boolean = false) =
    ReadSet(v, preds, whole, read, Set.empty, Set.empty)

  protected def staged(
      removes: Seq[DataFrame] = Nil,
      protocol: Boolean = false,
      appIds: Set[String] = Set.empty,
      domains: Set[String] = Set.empty
  ) = StagedSummary(protocol, changesMetadata = false, removes, appIds, domains, false)

  protected val partA = col("partitionValues_parsed.part") === "a"

  /** Asserts delta-spark raised `intended` (the scenario is what it claims) and txlog agrees. */
  protected def agree(delta: String, intended: String, txlog: String): Unit = {
    assert(delta == intended, "delta-spark's outcome: the scenario is not what it claims")
    assert(txlog == expectedClass(delta))
  }
}
