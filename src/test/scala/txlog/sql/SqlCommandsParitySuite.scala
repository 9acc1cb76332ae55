package txlog.sql

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.txlog.SparkErrors

import txlog.{DeltaLog, SparkSuite, TxlogException}
import txlog.scan.Rows

/** txlog's SQL statements ([[TxlogSparkSessionExtensions]]) against delta-spark's: the same
  * statement on a delta-spark table (or, read by delta-spark, on the txlog table's path) and
  * through txlog on a txlog table give the same rows, metrics and failures. Expected values are
  * delta-spark's, in the same run. Also: a txlog statement on a delta table is delta-spark's,
  * unknown tables and non-Delta paths fail typed, VACUUM refuses a short retention, REPAIR is a dry
  * run unless asked.
  */
class SqlCommandsParitySuite extends SparkSuite with DeltaRsReadsBack with txlog.testing.InTurn {
  override protected def turns = 3 // make test runs its inTurn tests in turn

  // delta-spark's VACUUM spreads its listing over this many tasks (10,000 by default: each of
  // this suite's two delta-spark VACUUMs took about 80 s on 2 cores).
  override def extraConf: Map[String, String] = Map(
    "spark.sql.catalog.txlog" -> classOf[TxlogCatalog].getName,
    "spark.sql.sources.parallelPartitionDiscovery.parallelism" -> "4"
  )

  private lazy val db: String = {
    spark.sql(s"CREATE DATABASE IF NOT EXISTS sqlcmds LOCATION '${tempDir("sqlcmdsdb")}'")
    "sqlcmds"
  }

  private type Pair = SqlPair
  private def Pair(name: String): Pair = new SqlPair(spark, db, name, tempDir, readBack)

  private val create =
    "CREATE TABLE {t} (id BIGINT, part STRING) USING {p} PARTITIONED BY (part) LOCATION '{loc}'"

  /** A pair with a few small files: versions 0 (create) to 3. */
  private lazy val shared: Pair = {
    val p = Pair("shared")
    p.both(create)
    p.both("INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    p.both("INSERT INTO {t} VALUES (3, 'a')")
    p.both("INSERT INTO {t} VALUES (4, 'a'), (5, 'b')")
    p
  }

  private def failure(f: => Any): Throwable = intercept[Throwable] { f; () }

  private def condition(t: Throwable): String = t match {
    case e: TxlogException                  => e.errorClass
    case e: org.apache.spark.SparkThrowable => SparkErrors.condition(e)
    case other                              => other.getClass.getName
  }

  private def one(df: DataFrame): Row = {
    val rows = df.collect(); assert(rows.length == 1); rows(0)
  }

  private def versions(path: String): Seq[Long] =
    DeltaLog.forTable(spark, path).history().select("version").collect().map(_.getLong(0)).toSeq

  /** The rows delta-spark reads at `path`. */
  private def byDelta(path: String): Seq[(Long, String)] =
    spark.read
      .format("delta")
      .load(path)
      .select("id", "part")
      .collect()
      .toSeq
      .map(r => r.getLong(0) -> r.getString(1))
      .sorted

  private def listed(dir: String): Seq[String] = {
    val s = Files.walk(java.nio.file.Paths.get(dir))
    try s.iterator().asScala.map(_.toString).toSeq.sorted
    finally s.close()
  }

  test("DESCRIBE HISTORY [LIMIT n]: delta-spark's rows of the same table") {
    val p = shared
    val cols = Seq(
      "version",
      "timestamp",
      "operation",
      "operationParameters",
      "readVersion",
      "isBlindAppend",
      "operationMetrics"
    )
    def of(df: DataFrame) = df.selectExpr(cols.map(c => s"`$c`"): _*).collect().toSeq
    val expected = of(p.deltaOnTxlog("DESCRIBE HISTORY {t}"))
    assert(expected.map(_.getLong(0)) == Seq(3L, 2L, 1L, 0L))
    val got = p.txlog("DESCRIBE HISTORY {t}")
    assert(of(got) == expected)
    assert(
      of(p.txlog("DESCRIBE HISTORY {t} LIMIT 2")) == of(
        p.deltaOnTxlog("DESCRIBE HISTORY {t} LIMIT 2")
      )
    )
    // The rows the Scala API gives.
    assert(got.collect().toSeq == DeltaLog.forTable(spark, p.txlogPath).history().collect().toSeq)
    // By path, and with the table's own operations named as delta-spark names them.
    val byPath = of(spark.sql(s"DESCRIBE HISTORY txlog.`${p.txlogPath}` LIMIT 1"))
    assert(byPath == expected.take(1))
    assert(of(p.delta("DESCRIBE HISTORY {t}")).map(_.getString(2)) == expected.map(_.getString(2)))
  }

  test("DESCRIBE DETAIL: delta-spark's fields of the same table") {
    val p = shared
    val cols = Seq(
      "format",
      "id",
      "name",
      "description",
      "location",
      "createdAt",
      "lastModified",
      "partitionColumns",
      "numFiles",
      "sizeInBytes",
      "properties",
      "minReaderVersion",
      "minWriterVersion",
      "tableFeatures"
    )
    def of(df: DataFrame) = df.selectExpr(cols.map(c => s"`$c`"): _*).collect().toSeq
    val got = of(p.txlog("DESCRIBE DETAIL {t}"))
    val expected = of(p.deltaOnTxlog("DESCRIBE DETAIL {t}"))
    assert(got == expected)
    assert(got.head.getLong(8) == one(p.delta("DESCRIBE DETAIL {t}")).getAs[Long]("numFiles"))
  }

  inTurn("OPTIMIZE [WHERE]: delta-spark's file counts, the same rows") {
    val p = Pair("optimize")
    p.both(create)
    for (i <- 1 to 3) p.both(s"INSERT INTO {t} VALUES ($i, 'a'), (${i + 10}, 'b')")
    def counts(m: Row) = (m.getAs[Long]("numFilesRemoved"), m.getAs[Long]("numFilesAdded"))
    val d1 = counts(one(p.delta("OPTIMIZE {t} WHERE part = 'a'")).getAs[Row]("metrics"))
    val t1 = one(p.txlog("OPTIMIZE {t} WHERE part = 'a'"))
    assert((t1.getAs[Long]("num_removed_files"), t1.getAs[Long]("num_added_files")) == d1)
    p.sameRows()
    val d2 = counts(one(p.delta("OPTIMIZE {t}")).getAs[Row]("metrics"))
    val t2 = one(p.txlog("OPTIMIZE {t}"))
    assert((t2.getAs[Long]("num_removed_files"), t2.getAs[Long]("num_added_files")) == d2)
    assert(t2.getAs[Boolean]("committed"))
    p.sameRows()
    assert(versions(p.txlogPath) == versions(p.deltaPath))
  }

  inTurn("RESTORE [TABLE] TO VERSION AS OF / TIMESTAMP AS OF: delta-spark's metrics and rows") {
    val p = Pair("restore")
    p.both(create)
    p.both("INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    p.both("INSERT OVERWRITE {t} SELECT 3, 'c'")
    val counts = Seq("num_of_files_after_restore", "num_removed_files", "num_restored_files")
    def metrics(r: Row) = counts.map(c => r.getAs[Long](c))
    val d = metrics(one(p.delta("RESTORE TABLE {t} TO VERSION AS OF 1")))
    val t = one(p.txlog("RESTORE TABLE {t} TO VERSION AS OF 1"))
    assert(metrics(t) == d)
    assert(t.getAs[Long]("version") == 3L && t.getAs[Long]("restored_version") == 1L)
    p.sameRows()
    def ts(table: String, v: Long) = spark
      .sql(s"DESCRIBE HISTORY $table")
      .where(s"version = $v")
      .selectExpr("CAST(timestamp AS STRING)")
      .head()
      .getString(0)
    val dt = metrics(one(p.delta(s"RESTORE {t} TO TIMESTAMP AS OF '${ts(p.deltaTable, 2)}'")))
    val tt = one(p.txlog(s"RESTORE {t} TO TIMESTAMP AS OF '${ts(p.txlogTable, 2)}'"))
    assert(metrics(tt) == dt && tt.getAs[Long]("restored_version") == 2L)
    p.sameRows()
    val dv = condition(failure(p.delta("RESTORE {t} TO VERSION AS OF 99").collect()))
    val tv = failure(p.txlog("RESTORE {t} TO VERSION AS OF 99").collect())
    assert(condition(tv) == "VERSION_NOT_FOUND", s"$tv (delta-spark: $dv)")
    assert(versions(p.txlogPath) == versions(p.deltaPath))
  }

  inTurn("REORG TABLE ... APPLY (PURGE): delta-spark's file counts, deletion vectors gone") {
    val p = Pair("purge")
    p.both(create + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    p.both("INSERT INTO {t} SELECT id, IF(id % 2 = 0, 'a', 'b') FROM range(20)")
    spark.sql(s"DELETE FROM ${p.deltaTable} WHERE id IN (2, 3)")
    spark.sql(s"DELETE FROM delta.`${p.txlogPath}` WHERE id IN (2, 3)")
    p.sameRows()
    // _metadata.row_index with deletion vectors, as delta-spark reads the same files: each row's
    // position in its file, the deleted rows left out and the others not renumbered
    def indexes(t: String) =
      Rows.sorted(spark.sql(s"SELECT id, _metadata.file_name, _metadata.row_index FROM $t"))
    assert(indexes(p.txlogTable) == indexes(s"delta.`${p.txlogPath}`"))
    assert(indexes(s"txlog.`${p.deltaPath}`") == indexes(p.deltaTable))
    val gaps = spark.sql(
      s"SELECT max(_metadata.row_index) + 1 - count(*) FROM ${p.deltaTable} " +
        "GROUP BY _metadata.file_name"
    )
    assert(gaps.collect().map(_.getLong(0)).sum > 0) // rows after a deleted one are compared
    def counts(m: Row) = (m.getAs[Long]("numFilesRemoved"), m.getAs[Long]("numFilesAdded"))
    val where = "REORG TABLE {t} WHERE part = 'a' APPLY (PURGE)"
    val d1 = counts(one(p.delta(where)).getAs[Row]("metrics"))
    val t1 = one(p.txlog(where))
    assert((t1.getAs[Long]("num_removed_files"), t1.getAs[Long]("num_added_files")) == d1)
    val d2 = counts(one(p.delta("REORG TABLE {t} APPLY (PURGE)")).getAs[Row]("metrics"))
    val t2 = one(p.txlog("REORG TABLE {t} APPLY (PURGE)"))
    assert((t2.getAs[Long]("num_removed_files"), t2.getAs[Long]("num_added_files")) == d2)
    p.sameRows()
    val dvs = DeltaLog
      .forTable(spark, p.txlogPath)
      .snapshot()
      .allFiles
      .where("deletionVector IS NOT NULL")
      .count()
    assert(dvs == 0L)
  }

  inTurn("VACUUM [RETAIN n HOURS] [DRY RUN]: delta-spark's files; a short retention is refused") {
    // The oracle is delta-spark's VACUUM of the txlog table's path: no delta-spark table needed.
    val p = Pair("vacuum")
    p.txlog(create + " TBLPROPERTIES ('delta.deletedFileRetentionDuration' = 'interval 0 hours')")
    p.txlog("INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    p.txlog("INSERT OVERWRITE {t} SELECT 3, 'a'")
    Thread.sleep(50)
    val expected = p.deltaOnTxlog("VACUUM {t} RETAIN 0 HOURS DRY RUN").count()
    assert(expected == 2L)
    val before = versions(p.txlogPath)
    val dry = one(p.txlog("VACUUM {t} RETAIN 0 HOURS DRY RUN"))
    assert(dry.getAs[Long]("num_files") == expected && dry.getAs[Boolean]("dry_run"))
    assert(dry.getAs[Long]("num_deleted_files") == 0L && versions(p.txlogPath) == before)
    val done = one(p.txlog("VACUUM {t}"))
    assert(done.getAs[Long]("num_deleted_files") == expected && !done.getAs[Boolean]("dry_run"))
    assert(byDelta(p.txlogPath) == Seq(3L -> "a"))
    // Fail closed: a retention under the table's (7 days by default) is refused, as the API and the
    // command line refuse it unless forced; nothing is deleted or committed.
    val q = shared
    val files = listed(q.txlogPath)
    val api = failure(DeltaLog.forTable(spark, q.txlogPath).vacuum(Some(1.0), dryRun = false))
    for (s <- Seq("VACUUM {t} RETAIN 1 HOURS", "VACUUM {t} RETAIN 0 HOURS DRY RUN")) {
      val e = failure(q.txlog(s).collect())
      assert(condition(e) == "VACUUM_RETENTION_TOO_SHORT" && condition(e) == condition(api), e)
    }
    assert(listed(q.txlogPath) == files)
  }

  inTurn("CHECKPOINT TABLE, VALIDATE TABLE; REPAIR TXLOG TABLE is a dry run unless APPLY") {
    val p = shared
    val c = one(p.txlog("CHECKPOINT TABLE {t}"))
    assert(c.getAs[Long]("version") == 3L)
    assert(
      Files.exists(Path.of(p.txlogPath, "_delta_log", "00000000000000000003.checkpoint.parquet"))
    )
    p.sameRows()
    assert(p.txlog("VALIDATE TABLE {t}").where("severity = 'error'").count() == 0L)
    val q = Pair("repair")
    q.txlog(create).collect()
    q.txlog("INSERT INTO {t} VALUES (1, 'a'), (2, 'b')").collect()
    val lost = DeltaLog
      .forTable(spark, q.txlogPath)
      .snapshot()
      .allFiles
      .where("partitionValues['part'] = 'a'")
      .select("path")
      .head()
      .getString(0)
    Files.delete(Path.of(q.txlogPath, new java.net.URI(lost).getPath))
    val before = versions(q.txlogPath)
    val plan = one(q.txlog("REPAIR TXLOG TABLE {t}"))
    assert(plan.getAs[Boolean]("dry_run") && plan.getAs[Long]("num_files_removed") == 1L)
    assert(versions(q.txlogPath) == before)
    assert(one(q.txlog("REPAIR TXLOG TABLE {t} DRY RUN")).getAs[Boolean]("dry_run"))
    // Half the live files lost: refused unless FORCE, as the command line without --force.
    val refused = failure(q.txlog("REPAIR TXLOG TABLE {t} APPLY").collect())
    assert(condition(refused) == "REPAIR_TOO_MANY_LOST_FILES" && versions(q.txlogPath) == before)
    val r = one(q.txlog("REPAIR TXLOG TABLE {t} APPLY FORCE"))
    assert(!r.getAs[Boolean]("dry_run") && r.getAs[Long]("commit_version") == 2L)
    assert(byDelta(q.txlogPath) == Seq(2L -> "b"))
  }

  test("on a delta-spark table the statements are delta-spark's; txlog's own are refused") {
    val p = shared
    val history = p.delta("DESCRIBE HISTORY {t}")
    assert(history.columns.contains("engineInfo") && history.count() == 4L)
    assert(spark.sql(s"VACUUM delta.`${p.deltaPath}` DRY RUN").columns.toSeq == Seq("path"))
    val before = versions(p.deltaPath)
    for (s <- Seq("CHECKPOINT TABLE {t}", "REPAIR TXLOG TABLE {t} APPLY FORCE")) {
      val e = failure(p.delta(s).collect())
      assert(condition(e) == "INVALID_ARGUMENT", e)
      assert(e.getMessage.contains("not a txlog table"), e)
    }
    assert(versions(p.deltaPath) == before)
  }

  test("unknown tables and paths that are not Delta tables fail typed, nothing written") {
    val d = failure(spark.sql(s"DESCRIBE HISTORY spark_catalog.$db.nope").collect())
    for (
      s <- Seq("DESCRIBE HISTORY", "DESCRIBE DETAIL", "VACUUM", "OPTIMIZE", "CHECKPOINT TABLE")
    ) {
      val e = failure(spark.sql(s"$s txlog.$db.nope").collect())
      assert(condition(e) == condition(d), e)
    }
    val empty = tempDir("sqlcnot").toString
    for (
      s <- Seq("DESCRIBE DETAIL", "VACUUM", "OPTIMIZE", "REPAIR TXLOG TABLE", "VALIDATE TABLE")
    ) {
      val e = failure(spark.sql(s"$s txlog.`$empty`").collect())
      assert(condition(e) == "DELTA_TABLE_NOT_FOUND", e)
    }
    assert(listed(empty) == Seq(empty))
  }

  deltaRsReadsEveryTable()
}
