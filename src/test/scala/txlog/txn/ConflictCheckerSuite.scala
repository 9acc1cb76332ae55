package txlog.txn

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{EqualTo, Expression, GreaterThan, Literal}
import org.apache.spark.sql.delta.{
  DeltaLog => RefLog,
  DeltaOperations,
  IsolatedTransactions,
  OptimisticTransaction
}
import org.apache.spark.sql.delta.actions.{
  Action,
  AddFile,
  DeletionVectorDescriptor,
  DomainMetadata,
  Protocol => RefProtocol,
  SetTransaction
}
import org.apache.spark.sql.functions.col

import txlog.{DeltaLog, SparkSuite, TxlogException}
import txlog.log.{CommitFile, FileInfo, TablePath}

/** Each scenario is raced with delta-spark's own transactions on a table: the winner commits, then
  * the loser's commit meets it. The exception delta-spark raises (or none) is the expected outcome;
  * txlog's checker, given the same read set, staged actions and the winner's commit file (written
  * by delta-spark), must raise the corresponding error class.
  */
class ConflictCheckerSuite extends SparkSuite {

  /** delta-spark's exception (simple class name) -> txlog's error class. */
  private val expectedClass = Map(
    "none" -> "none",
    "ConcurrentAppendException" -> "CONCURRENT_APPEND",
    "ConcurrentDeleteReadException" -> "CONCURRENT_DELETE_READ",
    "ConcurrentDeleteDeleteException" -> "CONCURRENT_DELETE_DELETE",
    "MetadataChangedException" -> "METADATA_CHANGED",
    "ProtocolChangedException" -> "PROTOCOL_CHANGED",
    "ConcurrentTransactionException" -> "CONCURRENT_TRANSACTION"
  )

  private val part = UnresolvedAttribute.quoted("part")
  private def partIs(v: String): Expression = EqualTo(part, Literal(v))
  private val withStats = """{"numRecords":1,"minValues":{"id":1},"maxValues":{"id":1},""" +
    """"nullCount":{"id":0}}"""

  private def add(path: String, p: String, stats: String = withStats): AddFile =
    AddFile(path, Map("part" -> p), 10L, 1L, dataChange = true, stats = stats)

  /** A partitioned table (id INT, part STRING) at `level`, holding a0 (part a) and b0 (part b).
    * Open-source delta-spark accepts only Serializable as a `delta.isolationLevel` value (its
    * default); WriteSerializable transactions come from [[IsolatedTransactions]].
    */
  private def newTable(level: String, props: String = ""): String = {
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

  private def manual = DeltaOperations.ManualUpdate

  /** A winner that reads nothing of interest, so its commit is not a blind append. */
  private def notBlind(w: OptimisticTransaction): Unit = w.filterFiles(Seq(partIs("zzz")))

  /** Races `current` (reads, returns its staged actions) against `winner` in delta-spark; the read
    * version and the exception's simple class name ("none" when it committed).
    */
  private def race(dir: String, level: String = "WriteSerializable")(
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

  private def files(dir: String, v: Long, pred: Column): DataFrame =
    DeltaLog.forTable(spark, dir).snapshot(v).allFiles.where(pred)

  private def paths(ps: String*): DataFrame = {
    val session = spark
    import session.implicits._
    ps.toDF("path")
  }

  /** txlog's outcome: the error class check() raises against commit readVersion + 1, the same
    * whether the winner is read on the driver or (as a large one would be) by a Spark job.
    */
  private def txlogOutcome(
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
          spark,
          table,
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
    val conf = "spark.txlog.replay.localReadMaxBytes"
    spark.conf.set(conf, "0")
    val distributed =
      try outcome()
      finally spark.conf.unset(conf)
    assert(onDriver == distributed, "the winner read by a job")
    onDriver
  }

  private val fileConflicts =
    Set("CONCURRENT_APPEND", "CONCURRENT_DELETE_READ", "CONCURRENT_DELETE_DELETE")

  private def readSet(v: Long, preds: Seq[Column], read: Seq[DataFrame], whole: Boolean = false) =
    ReadSet(v, preds, whole, read, Set.empty, Set.empty)

  private def staged(
      removes: Seq[DataFrame] = Nil,
      protocol: Boolean = false,
      appIds: Set[String] = Set.empty,
      domains: Set[String] = Set.empty
  ) = StagedSummary(protocol, changesMetadata = false, removes, appIds, domains, false)

  private val partA = col("partitionValues_parsed.part") === "a"

  /** Asserts delta-spark raised `intended` (the scenario is what it claims) and txlog agrees. */
  private def agree(delta: String, intended: String, txlog: String): Unit = {
    assert(delta == intended, "delta-spark's outcome: the scenario is not what it claims")
    assert(txlog == expectedClass(delta))
  }

  for (
    (level, name) <- Seq(
      IsolationLevel.WriteSerializable -> "WriteSerializable",
      IsolationLevel.Serializable -> "Serializable"
    )
  ) {
    test(s"disjoint partitions do not conflict ($name)") {
      val dir = newTable(name)
      val (v, delta) = race(dir, name) { t =>
        t.filterFiles(Seq(partIs("a")))
        Seq(add("part=a/c1.parquet", "a"), add("part=a/a0.parquet", "a").remove)
      } { w =>
        w.filterFiles(Seq(partIs("b")))
        Seq(add("part=b/w1.parquet", "b"), add("part=b/b0.parquet", "b").remove)
      }
      val out = txlogOutcome(
        dir,
        level,
        readSet(v, Seq(partA), Seq(files(dir, v, partA))),
        staged(removes = Seq(paths("part=a/a0.parquet")))
      )
      agree(delta, "none", out)
    }

    test(s"a blind append matching the read predicate ($name)") {
      val dir = newTable(name)
      val (v, delta) = race(dir, name) { t =>
        t.filterFiles(Seq(partIs("a")))
        Seq(add("part=a/c1.parquet", "a"))
      }(_ => Seq(add("part=a/w1.parquet", "a")))
      val out =
        txlogOutcome(dir, level, readSet(v, Seq(partA), Seq(files(dir, v, partA))), staged())
      val intended = if (name == "Serializable") "ConcurrentAppendException" else "none"
      agree(delta, intended, out)
    }
  }

  test("an add matching the read predicate from a winner that is not a blind append") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.filterFiles(Seq(partIs("a")))
      Seq(add("part=a/c1.parquet", "a"))
    } { w => notBlind(w); Seq(add("part=a/w1.parquet", "a")) }
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Seq(partA), Seq(files(dir, v, partA))),
      staged()
    )
    agree(delta, "ConcurrentAppendException", out)
  }

  test("a blind append counts under WriteSerializable when the transaction changes metadata") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.filterFiles(Seq(partIs("a")))
      t.updateMetadata(t.metadata.copy(configuration = t.metadata.configuration + ("k" -> "v")))
      Seq(add("part=a/c1.parquet", "a"))
    }(_ => Seq(add("part=a/w1.parquet", "a")))
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Seq(partA), Seq(files(dir, v, partA))),
      staged().copy(changesMetadata = true)
    )
    agree(delta, "ConcurrentAppendException", out)
  }

  test("a transaction that read the whole table conflicts with any data-changing add") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.readWholeTable()
      Seq(add("part=a/c1.parquet", "a"))
    } { w => notBlind(w); Seq(add("part=b/w1.parquet", "b")) }
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Nil, Nil, whole = true),
      staged()
    )
    agree(delta, "ConcurrentAppendException", out)
  }

  test("a file without stats counts as matching a predicate on data columns") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.filterFiles(Seq(GreaterThan(UnresolvedAttribute.quoted("id"), Literal(100))))
      Seq(add("part=a/c1.parquet", "a"))
    } { w => notBlind(w); Seq(add("part=b/w1.parquet", "b", stats = null)) }
    val pred = col("stats_parsed.maxValues.id") > 100
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Seq(pred), Seq(files(dir, v, pred))),
      staged()
    )
    agree(delta, "ConcurrentAppendException", out)
  }

  test("a file read by the transaction and removed by the winner") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.filterFiles(Seq(partIs("a")))
      Seq(add("part=a/c1.parquet", "a"))
    } { w => notBlind(w); Seq(add("part=a/a0.parquet", "a").remove) }
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Seq(partA), Seq(files(dir, v, partA))),
      staged()
    )
    agree(delta, "ConcurrentDeleteReadException", out)
  }

  test("several winners are checked oldest first; the error names the conflicting one") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.filterFiles(Seq(partIs("a")))
      Seq(add("part=a/c1.parquet", "a"))
    }(
      w => { notBlind(w); Seq(add("part=b/w1.parquet", "b")) },
      w => { notBlind(w); Seq(add("part=a/a0.parquet", "a").remove) },
      w => { notBlind(w); Seq(add("part=a/w2.parquet", "a")) }
    )
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Seq(partA), Seq(files(dir, v, partA))),
      staged(),
      numWinners = 3,
      conflictAt = 2
    )
    agree(delta, "ConcurrentDeleteReadException", out)
  }

  test("a file removed by both") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { _ =>
      Seq(add("part=a/a0.parquet", "a").remove)
    } { w => notBlind(w); Seq(add("part=a/a0.parquet", "a").remove) }
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Nil, Nil),
      staged(removes = Seq(paths("part=a/a0.parquet")))
    )
    agree(delta, "ConcurrentDeleteDeleteException", out)
  }

  test("a file removed by both, once with a deletion vector and once without") {
    val dir = newTable("WriteSerializable")
    val dv = DeletionVectorDescriptor.onDiskWithRelativePath(
      java.util.UUID.fromString("11111111-2222-3333-4444-555555555555"),
      sizeInBytes = 34,
      cardinality = 1L
    )
    val (v, delta) = race(dir) { _ =>
      Seq(add("part=a/a0.parquet", "a").remove.copy(deletionVector = dv))
    } { w => notBlind(w); Seq(add("part=a/a0.parquet", "a").remove) }
    val session = spark
    import session.implicits._
    val ours = Seq(("part=a/a0.parquet", dv.storageType, dv.pathOrInlineDv))
      .toDF("path", "storageType", "pathOrInlineDv")
      .selectExpr(
        "path",
        "named_struct('storageType', storageType, 'pathOrInlineDv', pathOrInlineDv, " +
          "'offset', CAST(NULL AS INT)) AS deletionVector"
      )
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Nil, Nil),
      staged(removes = Seq(ours))
    )
    agree(delta, "ConcurrentDeleteDeleteException", out)
  }

  test("a metadata change by the winner") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.filterFiles(Seq(partIs("a")))
      Seq(add("part=a/c1.parquet", "a"))
    } { w =>
      w.updateMetadata(w.metadata.copy(configuration = w.metadata.configuration + ("k" -> "v")))
      Nil
    }
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Seq(partA), Seq(files(dir, v, partA))),
      staged()
    )
    agree(delta, "MetadataChangedException", out)
  }

  test("a protocol change by both") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { _ =>
      Seq(RefProtocol(1, 3), add("part=a/c1.parquet", "a"))
    }(_ => Seq(RefProtocol(1, 3)))
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Nil, Nil),
      staged(protocol = true)
    )
    agree(delta, "ProtocolChangedException", out)
  }

  test("the same application id") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.txnVersion("app-1")
      Seq(SetTransaction("app-1", 1L, Some(1L)), add("part=a/c1.parquet", "a"))
    }(_ => Seq(SetTransaction("app-1", 1L, Some(1L)), add("part=b/w1.parquet", "b")))
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Nil, Nil).copy(appIds = Set("app-1")),
      staged(appIds = Set("app-1"))
    )
    agree(delta, "ConcurrentTransactionException", out)
  }

  test("the same domain") {
    val dir = newTable("WriteSerializable", "'delta.feature.domainMetadata' = 'supported'")
    val (v, delta) = race(dir) { _ =>
      Seq(DomainMetadata("my.domain", "{}", removed = false), add("part=a/c1.parquet", "a"))
    }(_ => Seq(DomainMetadata("my.domain", """{"x":1}""", removed = false)))
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Nil, Nil),
      staged(domains = Set("my.domain"))
    )
    agree(delta, "ConcurrentTransactionException", out)
  }

  test("removes by both are compared by path, as the URIs they are, whatever their DVs") {
    // delta-spark compares the removes' paths (deletion vectors aside: a remove spelled with
    // another DV, or none, still removes that file in a rewrite); it compares raw path strings,
    // where a path is a URI relative to the table root or absolute (the spec), so the same file
    // spelled absolutely is the same file here.
    val dir = newTable("WriteSerializable")
    val table = TablePath.qualified(dir, spark.sessionState.newHadoopConf())
    val absolute = s"${table.root}/part=a/a0.parquet"
    val winner = Seq(
      """{"commitInfo":{"timestamp":1,"operation":"DELETE","isBlindAppend":false}}""",
      s"""{"remove":{"path":"$absolute","deletionTimestamp":1,"dataChange":true}}"""
    ).mkString("", "\n", "\n")
    java.nio.file.Files.writeString(
      java.nio.file.Paths.get(dir, "_delta_log", f"${2L}%020d.json"),
      winner
    )
    val session = spark
    import session.implicits._
    val withDv = Seq(("part=a/a0.parquet", "u", "ab^-aqEH.-t@-}", 1))
      .toDF("path", "storageType", "pathOrInlineDv", "offset")
      .selectExpr(
        "path",
        "named_struct('storageType', storageType, 'pathOrInlineDv', " +
          "pathOrInlineDv, 'offset', offset) AS deletionVector"
      )
    val level = IsolationLevel.WriteSerializable
    def outcome(removes: DataFrame) =
      txlogOutcome(dir, level, readSet(1L, Nil, Nil), staged(removes = Seq(removes)))
    assert(outcome(paths("part=a/a0.parquet")) == "CONCURRENT_DELETE_DELETE")
    assert(
      outcome(paths("part=a/a0.parquet").selectExpr("'part%3Da/a0.parquet' AS path")) ==
        "CONCURRENT_DELETE_DELETE"
    )
    assert(outcome(withDv) == "CONCURRENT_DELETE_DELETE")
    assert(outcome(paths("part=b/b0.parquet")) == "none")
  }
}
