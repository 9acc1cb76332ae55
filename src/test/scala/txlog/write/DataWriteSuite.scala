package txlog.write

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.{col, expr}

import txlog.{DeltaLog, SparkSuite, TxlogException, WriteOptions}
import txlog.scan.{Rows, ScanPlans}

/** `DeltaLog.write` against delta-spark: the rows of tables txlog writes read the same in
  * delta-spark, and the statistics of each data file equal the ones delta-spark writes for the same
  * rows (one task, so one file per partition in both); delta-spark skips files by them.
  */
class DataWriteSuite extends SparkSuite {

  /** Every primitive type, nested struct, array and map; nulls; strings longer than the 32
    * characters statistics keep, and non-ASCII ones.
    */
  private def rows: DataFrame = spark.sql(
    """SELECT id, CAST(id AS BYTE) AS b, CAST(id * 3 AS SHORT) AS s, CAST(id AS INT) AS i,
      |  id * 1000000007 AS l, CAST(id / 7 AS FLOAT) AS f, id / 3.0D AS d,
      |  CAST(id / 7 AS DECIMAL(12, 3)) AS dec, id % 3 = 0 AS flag,
      |  CASE WHEN id % 5 = 0 THEN NULL
      |    WHEN id % 5 = 1 THEN concat(repeat('x', 40), CAST(id AS STRING))
      |    WHEN id % 5 = 2 THEN concat('ü€', CAST(id AS STRING))
      |    ELSE concat('n', CAST(id AS STRING)) END AS name,
      |  CAST(concat('b', id) AS BINARY) AS bin,
      |  date_add(DATE'2024-02-28', CAST(id AS INT)) AS day,
      |  timestamp_micros(1700000000123456 + id * 3600000001) AS ts,
      |  CAST(timestamp_micros(1700000000000000 + id * 1000) AS TIMESTAMP_NTZ) AS ntz,
      |  named_struct('x', id * 2, 'y', CASE WHEN id % 4 = 0 THEN NULL ELSE concat('y', id) END,
      |    'z', named_struct('w', id / 2.0D)) AS st,
      |  CASE WHEN id % 6 = 0 THEN NULL ELSE array(id, id + 1) END AS arr,
      |  map(CAST(id AS STRING), id) AS m,
      |  CASE WHEN id % 2 = 0 THEN 'a b/c=d' WHEN id % 3 = 0 THEN NULL ELSE 'p%1' END AS part,
      |  CAST(id % 3 AS INT) AS pint
      |FROM range(0, 60)""".stripMargin
  )

  private def sortedRows(df: DataFrame): Seq[String] =
    Rows.sorted(df.select(df.columns.sorted.map(c => col(s"`$c`")): _*))

  private def table(name: String): String = tempDir(name).resolve("t").toString

  /** Statistics JSON of each file of `t` at its latest version, by partition values. */
  private def statsByPartition(t: String): Map[Map[String, String], String] =
    DeltaLog
      .forTable(spark, t)
      .snapshot()
      .allFiles
      .select("partitionValues", "stats")
      .collect()
      .map(r => r.getMap[String, String](0).toMap -> r.getString(1))
      .toMap

  private val partitionings = Seq(Nil, Seq("part"), Seq("pint", "day"))

  // `make test`: unpartitioned and one of the two partitionings, and one column mapping mode, which
  // rotating by day (txlog.testing.Breadth); `make test-breadth`: every one.
  for (parts <- txlog.testing.Breadth.share(partitionings, 2, suiteName)(_.isEmpty)) {
    val label = if (parts.isEmpty) "unpartitioned" else parts.mkString("partitioned by ", ", ", "")
    test(s"rows and statistics equal delta-spark's: $label") {
      val df = rows.coalesce(1)
      val ours = table("write-ours")
      val r = DeltaLog.write(df, ours, WriteOptions(partitionBy = parts))
      assert(r.version === 0 && r.committed && r.numOutputRows === 60)
      val theirs = table("write-delta")
      df.write.format("delta").partitionBy(parts: _*).save(theirs)
      val expected = sortedRows(spark.read.format("delta").load(theirs))
      assert(sortedRows(spark.read.format("delta").load(ours)) === expected)
      assert(sortedRows(DeltaLog.forTable(spark, ours).read()) === expected)
      val (a, b) = (statsByPartition(ours), statsByPartition(theirs))
      assert(a.keySet === b.keySet)
      assert(r.numFiles === a.size.toLong)
      a.keys.foreach(k => assert(a(k) === b(k), s"partition $k"))
    }
  }

  /** `json` with the physical names of `t`'s columns (column mapping) replaced by their logical
    * names, so that the statistics of two tables with the same schema compare.
    */
  private def logicalNames(t: String, json: String): String = {
    def pairs(st: org.apache.spark.sql.types.StructType): Seq[(String, String)] = st.fields.toSeq
      .flatMap { f =>
        val inner = f.dataType match {
          case s: org.apache.spark.sql.types.StructType => pairs(s)
          case _                                        => Nil
        }
        (txlog.protocol.ColumnMapping.physicalName(f) -> f.name) +: inner
      }
    pairs(DeltaLog.forTable(spark, t).snapshot().metadata.schema).foldLeft(json) {
      case (j, (physical, logical)) => j.replace("\"" + physical + "\"", "\"" + logical + "\"")
    }
  }

  for (mode <- txlog.testing.Breadth.share(Seq("name", "id"), 2, suiteName)(_ => false))
    test(s"column mapping ($mode): physical names and field ids, as delta-spark writes them") {
      rows.createOrReplaceTempView("write_rows")
      def create(t: String): Unit = spark.sql(
        s"CREATE TABLE delta.`$t` USING delta PARTITIONED BY (part) " +
          s"TBLPROPERTIES ('delta.columnMapping.mode' = '$mode') " +
          "AS SELECT * FROM write_rows WHERE false"
      )
      val (ours, theirs) = (table("write-cm-ours"), table("write-cm-delta"))
      create(ours)
      create(theirs)
      val df = rows.coalesce(1)
      DeltaLog.write(df, ours)
      df.write.format("delta").mode("append").save(theirs)
      val expected = sortedRows(spark.read.format("delta").load(theirs))
      assert(sortedRows(spark.read.format("delta").load(ours)) === expected)
      assert(sortedRows(DeltaLog.forTable(spark, ours).read()) === expected)
      val files = DeltaLog.forTable(spark, ours).snapshot().allFiles.select("path").collect()
      assert(files.forall(!_.getString(0).startsWith("part=")), "random prefixes, as delta-spark")
      def stats(t: String) = statsByPartition(t).map { case (k, v) =>
        k.values.toSeq -> logicalNames(t, v)
      }
      assert(stats(ours) === stats(theirs))
      // a column renamed after the write still reads: the files hold physical names
      spark.sql(s"ALTER TABLE delta.`$ours` RENAME COLUMN name TO label")
      val renamed = spark.read.format("delta").load(ours).where("label = 'n13'")
      assert(renamed.select("id").collect().map(_.getLong(0)).toSeq === Seq(13L))
    }

  test("deletion vectors, row tracking, in-commit timestamps, change data feed: as delta-spark") {
    val props = Seq(
      "delta.enableDeletionVectors",
      "delta.enableRowTracking",
      "delta.enableInCommitTimestamps",
      "delta.enableChangeDataFeed"
    ).map(k => s"'$k' = 'true'").mkString(", ")
    val (ours, theirs) = (table("write-feat-ours"), table("write-feat-delta"))
    Seq(ours, theirs).foreach { t =>
      spark.sql(
        s"CREATE TABLE delta.`$t` (id BIGINT, name STRING) USING delta TBLPROPERTIES ($props)"
      )
    }
    val df = spark.sql("SELECT id, concat('n', id) AS name FROM range(0, 20)").coalesce(1)
    val r = DeltaLog.write(df, ours)
    df.write.format("delta").mode("append").save(theirs)
    // tightBounds on tables that support deletion vectors
    assert(statsByPartition(ours) === statsByPartition(theirs))
    assert(statsByPartition(ours).values.forall(_.contains("\"tightBounds\":true")))
    def ids(t: String) = spark.read
      .format("delta")
      .load(t)
      .select("id", "_metadata.row_id", "_metadata.row_commit_version")
      .collect()
    assert(ids(ours).map(_.getLong(1)).toSet.size === 20)
    assert(ids(ours).forall(_.getLong(2) === r.version))
    val changes = spark.sql(s"SELECT * FROM table_changes_by_path('$ours', ${r.version})")
    assert(changes.where("_change_type = 'insert'").count() === 20)
    spark.sql(s"DELETE FROM delta.`$ours` WHERE id < 5")
    assert(spark.read.format("delta").load(ours).count() === 15)
    assert(DeltaLog.forTable(spark, ours).read().count() === 15)
  }

  test("delta-spark skips the files of a table txlog wrote by their statistics") {
    val t = table("write-skip")
    DeltaLog.write(rows.repartition(6, col("id")).sortWithinPartitions("id"), t)
    val log = DeltaLog.forTable(spark, t)
    assert(log.snapshot().numFiles === 6)
    val (files, got) = ScanPlans.filesRead(spark.read.format("delta").load(t).where("name = 'n13'"))
    assert(got.size === 1)
    val nonNull = spark.read.format("delta").load(t).where("id > 1000")
    assert(ScanPlans.filesRead(nonNull)._1 === 0L)
    assert(files < 6L)
  }

  test("append adds, overwrite replaces, error and ignore leave an existing table alone") {
    val t = table("write-modes")
    val first = spark.range(0, 10).toDF("id")
    DeltaLog.write(first, t, WriteOptions(mode = "error"))
    val appended = DeltaLog.write(spark.range(10, 15).toDF("id"), t)
    assert(appended.version === 1 && appended.numOutputRows === 5)
    assert(spark.read.format("delta").load(t).count() === 15)
    val e = intercept[TxlogException](DeltaLog.write(first, t, WriteOptions(mode = "error")))
    assert(e.errorClass === "TABLE_ALREADY_EXISTS")
    val ignored = DeltaLog.write(first, t, WriteOptions(mode = "ignore"))
    assert(!ignored.committed && ignored.version === 1 && ignored.numFiles === 0)
    val over = DeltaLog.write(spark.range(100, 103).toDF("id"), t, WriteOptions(mode = "overwrite"))
    assert(
      over.version === 2 && over.numRemovedFiles === DeltaLog
        .forTable(spark, t)
        .snapshot(1L)
        .numFiles
    )
    assert(sortedRows(spark.read.format("delta").load(t)) === Seq("{100}", "{101}", "{102}"))
    assert(spark.read.format("delta").option("versionAsOf", 1).load(t).count() === 15)
    val history = spark.sql(s"DESCRIBE HISTORY delta.`$t`").where("version = 2").collect().head
    assert(history.getAs[String]("operation") === "WRITE")
    assert(history.getAs[Map[String, String]]("operationParameters")("mode") === "Overwrite")
    assert(history.getAs[Map[String, String]]("operationMetrics")("numOutputRows") === "3")
  }

  test("df.write.format(\"txlog\"): save modes, partitionBy, table properties, options checked") {
    val t = table("write-source")
    val df = spark.sql("SELECT id, CAST(id % 2 AS STRING) AS p FROM range(6)")
    df.write
      .format("txlog")
      .partitionBy("p")
      .option("delta.appendOnly", "false")
      .option("delta.enableChangeDataFeed", "true")
      .save(t)
    val snap = DeltaLog.forTable(spark, t).snapshot()
    assert(snap.metadata.partitionColumns === Seq("p"))
    assert(snap.metadata.configuration.get("delta.enableChangeDataFeed").contains("true"))
    df.write.format("txlog").mode("append").save(t)
    assert(spark.read.format("delta").load(t).count() === 12)
    df.where("id < 2").write.format("txlog").mode("overwrite").save(t)
    assert(sortedRows(spark.read.format("txlog").load(t)) === Seq("{0, 0}", "{1, 1}"))
    val e = intercept[TxlogException](df.write.format("txlog").mode("error").save(t))
    assert(e.errorClass === "TABLE_ALREADY_EXISTS")
    df.write.format("txlog").mode("ignore").save(t)
    val bad = intercept[TxlogException](
      df.write.format("txlog").mode("append").option("optimizeWriteBins", "4").save(t)
    )
    assert(bad.errorClass === "INVALID_ARGUMENT" && bad.getMessage.contains("optimizewritebins"))
    assert(DeltaLog.forTable(spark, t).snapshot().version === 2)
  }

  test("an application's version is written once") {
    val t = table("write-txn")
    val opts = WriteOptions(txnAppId = Some("job-1"), txnVersion = Some(7L))
    assert(DeltaLog.write(spark.range(3).toDF("id"), t, opts).committed)
    val again = DeltaLog.write(spark.range(3).toDF("id"), t, opts)
    assert(!again.committed && again.numFiles === 0)
    assert(spark.read.format("delta").load(t).count() === 3)
    assert(DeltaLog.forTable(spark, t).snapshot().setTransactions === Map("job-1" -> 7L))
  }

  test("columns are matched by name; a missing nullable column is written as nulls") {
    val t = table("write-align")
    DeltaLog.write(spark.sql("SELECT id, 'a' AS s FROM range(2)"), t)
    DeltaLog.write(spark.sql("SELECT 'b' AS S, 5L AS id"), t)
    DeltaLog.write(spark.sql("SELECT 6L AS id"), t)
    assert(
      sortedRows(spark.read.format("delta").load(t)) === Seq(
        "{0, a}",
        "{1, a}",
        "{5, b}",
        "{6, null}"
      )
    )
  }

  /** Files under `t` (data files and log), to prove a refused write left nothing behind. */
  private def filesUnder(t: String): Set[String] =
    Files
      .walk(java.nio.file.Paths.get(t))
      .iterator()
      .asScala
      .filter(Files.isRegularFile(_))
      .map(_.toString)
      .toSet

  private def refused(t: String, cls: String)(write: => Any): TxlogException = {
    val before = filesUnder(t)
    val version = DeltaLog.forTable(spark, t).snapshot().version
    val e = intercept[TxlogException](write)
    assert(e.errorClass === cls, e.getMessage)
    assert(DeltaLog.forTable(spark, t).snapshot().version === version, "no new commit")
    val newFiles = filesUnder(t) -- before
    assert(newFiles.forall(!_.contains("_delta_log")), newFiles)
    e
  }

  test("bad input is refused with a typed error before any file is written") {
    val t = table("write-bad")
    DeltaLog.write(
      spark.sql("SELECT id, CAST(id AS STRING) AS s FROM range(3)"),
      t,
      WriteOptions(partitionBy = Seq("s"))
    )
    def noData(e: TxlogException) = assert(filesUnder(t).count(_.endsWith(".parquet")) === 3, e)
    noData(
      refused(t, "SCHEMA_MISMATCH")(
        DeltaLog.write(spark.sql("SELECT 1L AS id, 'x' AS s, 2 AS extra"), t)
      )
    )
    noData(refused(t, "SCHEMA_MISMATCH")(DeltaLog.write(spark.sql("SELECT 1 AS id, 'x' AS s"), t)))
    noData(
      refused(t, "SCHEMA_MISMATCH")(
        DeltaLog.write(
          spark.sql("SELECT 1L AS id, 'x' AS s"),
          t,
          WriteOptions(partitionBy = Seq("id"))
        )
      )
    )
    noData(
      refused(t, "INVALID_ARGUMENT")(
        DeltaLog.write(spark.range(1).toDF("id"), t, WriteOptions(mode = "upsert"))
      )
    )
    noData(
      refused(t, "INVALID_ARGUMENT")(
        DeltaLog.write(spark.range(1).toDF("id"), t, WriteOptions(properties = Map("a" -> "b")))
      )
    )
    noData(
      refused(t, "INVALID_ARGUMENT")(
        DeltaLog.write(spark.range(1).toDF("id"), t, WriteOptions(txnAppId = Some("a")))
      )
    )
  }

  test("a null in a NOT NULL column fails the write: CONSTRAINT_VIOLATION, no commit") {
    val t = table("write-notnull")
    spark.sql(s"CREATE TABLE delta.`$t` (id BIGINT NOT NULL, s STRING) USING delta")
    val e = refused(t, "CONSTRAINT_VIOLATION") {
      DeltaLog.write(
        spark.sql("SELECT CASE WHEN id = 2 THEN NULL ELSE id END AS id, 'a' AS s FROM range(4)"),
        t
      )
    }
    assert(e.getMessage.contains("id"))
    DeltaLog.write(spark.sql("SELECT id, 'a' AS s FROM range(4)"), t)
    assert(spark.read.format("delta").load(t).count() === 4)
  }

  test("string statistics are cut as delta-spark cuts them") {
    assert(FileStatistics.maxPrefix("abc", 5) === Some("abc"))
    assert(FileStatistics.maxPrefix("abcdef", 3) === Some("abc\u007f"))
    // the character after the prefix is above U+007F: the tie-breaker is U+10FFFF
    assert(FileStatistics.maxPrefix("ab\u00e9z", 2) === Some("ab\udbff\udfff"))
    // a prefix does not end inside a surrogate pair
    assert(FileStatistics.maxPrefix("a\ud83d\ude00bc", 2) === Some("a\ud83d\ude00\u007f"))
    // U+10FFFF at the cut is kept, and the prefix grows past it
    assert(FileStatistics.maxPrefix("ab\udbff\udfffc", 2) === Some("ab\udbff\udfff\u007f"))
    assert(FileStatistics.maxPrefix("abc", 0) === None)
  }
}
