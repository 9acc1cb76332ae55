package txlog.changes

import java.util.concurrent.atomic.AtomicInteger

import org.apache.spark.sql.DataFrame

import txlog.{DeltaLog, Fixtures, SparkSuite, TxlogException}
import txlog.scan.Rows
import txlog.timetravel.CommitTimeline

/** The change data feed against delta-spark's `table_changes` on tables delta-spark writes here
  * with the feed on (inserts, UPDATE, DELETE, MERGE; partitioned; column mapping; deletion
  * vectors), whole and over sub-ranges, by version and by timestamp; the typed errors of ranges
  * where the feed was off or that do not exist; the `txlog` data source's change feed options.
  */
class ChangesSuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn

  private val compared = new AtomicInteger

  private val Cdf = "'delta.enableChangeDataFeed' = 'true'"

  private def table(name: String, ddl: String, statements: String*): String = {
    val t = tempDir("cdf-" + name).resolve("t").toString
    spark.sql(ddl.replace("$t", s"delta.`$t`"))
    statements.foreach(s => spark.sql(s.replace("$t", s"delta.`$t`")))
    t
  }

  /** an insert (adds, no cdc files), UPDATE and DELETE of some rows and MERGE (cdc files). */
  private lazy val plain: String = table(
    "plain",
    s"CREATE TABLE $$t (id INT, name STRING) USING delta TBLPROPERTIES ($Cdf)",
    "INSERT INTO $t SELECT CAST(id AS INT), concat('n', id) FROM range(0, 10)",
    "UPDATE $t SET name = 'updated' WHERE id < 3",
    "DELETE FROM $t WHERE id >= 8",
    "MERGE INTO $t USING (SELECT CAST(id AS INT) AS id FROM range(5, 12)) s ON $t.id = s.id " +
      "WHEN MATCHED THEN UPDATE SET name = 'merged' " +
      "WHEN NOT MATCHED THEN INSERT (id, name) VALUES (s.id, 'new')"
  )

  /** A whole partition deleted (removes only, no cdc files), an update in another. */
  private lazy val partitioned: String = table(
    "parts",
    s"CREATE TABLE $$t (id INT, p STRING, d DATE) USING delta PARTITIONED BY (p) " +
      s"TBLPROPERTIES ($Cdf)",
    "INSERT INTO $t SELECT CAST(id AS INT), CASE WHEN id % 2 = 0 THEN 'a' ELSE 'b c' END, " +
      "date_add(DATE'2024-01-01', CAST(id AS INT)) FROM range(0, 8)",
    "DELETE FROM $t WHERE p = 'a'",
    "UPDATE $t SET id = id + 100 WHERE id = 3"
  )

  private lazy val mapped: String = table(
    "mapped",
    "CREATE TABLE $t (id INT, `the name` STRING) USING delta TBLPROPERTIES (" +
      s"'delta.columnMapping.mode' = 'name', $Cdf)",
    "INSERT INTO $t SELECT CAST(id AS INT), concat('n', id) FROM range(0, 6)",
    "UPDATE $t SET `the name` = 'u' WHERE id = 1",
    "DELETE FROM $t WHERE id = 4"
  )

  private lazy val withDvs: String = table(
    "dvs",
    "CREATE TABLE $t (id INT, name STRING) USING delta TBLPROPERTIES (" +
      s"'delta.enableDeletionVectors' = 'true', $Cdf)",
    "INSERT INTO $t SELECT CAST(id AS INT), concat('n', id) FROM range(0, 20) " +
      "DISTRIBUTE BY id % 2",
    "DELETE FROM $t WHERE id IN (3, 4, 11)",
    "UPDATE $t SET name = 'u' WHERE id IN (5, 12)",
    "DELETE FROM $t WHERE id = 6"
  )

  private def ref(path: String, start: Any, end: Any): DataFrame =
    spark.sql(s"SELECT * FROM table_changes_by_path('$path', $start, $end)")

  private def agree(ours: DataFrame, theirs: DataFrame, what: String): Unit = {
    assert(Rows.schema(ours) === Rows.schema(theirs), what)
    val (o, t) = (Rows.sorted(ours), Rows.sorted(theirs))
    assert(o === t, what)
    compared.incrementAndGet()
    info(s"$what: ${o.size} rows agree")
  }

  private def latest(path: String): Long = DeltaLog.forTable(spark, path).snapshot().version

  /** The whole log (every row carries its `_commit_version`, so each commit is compared) and
    * sub-ranges: the inner commits, the last commit.
    */
  private def ranges(path: String): Unit = {
    val last = latest(path)
    val log = DeltaLog.forTable(spark, path)
    for ((s, e) <- Seq((0L, last), (1L, last - 1), (last, last)).distinct) {
      agree(log.changes(s, e), ref(path, s, e), s"$path [$s, $e]")
    }
  }

  test("ranges of an insert, UPDATE, DELETE and MERGE as table_changes") {
    ranges(plain)
    val log = DeltaLog.forTable(spark, plain)
    val types = log.changes(0L).select("_change_type").distinct().collect().map(_.getString(0))
    assert(
      types.toSet === Set("insert", "delete", "update_preimage", "update_postimage"),
      "cdc files and plain adds both read"
    )
  }

  inTurn("a partitioned table (a whole partition deleted without cdc files) as table_changes") {
    ranges(partitioned)
    val df = DeltaLog.forTable(spark, partitioned).changes(0L)
    agree(
      df.where("p = 'a' AND _commit_version = 1"),
      ref(partitioned, 0, 2).where("p = 'a' AND _commit_version = 1"),
      "partition and version filters"
    )
    // a partition filter holding a scalar subquery is applied whole, never left out
    spark.range(1).selectExpr("'a' AS p").createOrReplaceTempView("changes_pick")
    val picked = "p = (SELECT max(p) FROM changes_pick)"
    agree(df.where(picked), ref(partitioned, 0, 2).where(picked), "a subquery partition filter")
  }

  test("a partition value not of its column's type is refused, never read as null") {
    val t = table(
      "badpv",
      s"CREATE TABLE $$t (id INT, q INT) USING delta PARTITIONED BY (q) TBLPROPERTIES ($Cdf)",
      "INSERT INTO $t VALUES (1, 1), (2, 2)"
    )
    val commit = java.nio.file.Paths.get(t, "_delta_log", "00000000000000000001.json")
    val text = new String(java.nio.file.Files.readAllBytes(commit), "UTF-8")
    assert(text.contains("\"q\":\"1\""))
    java.nio.file.Files
      .write(commit, text.replace("\"q\":\"1\"", "\"q\":\"one\"").getBytes("UTF-8"))
    java.nio.file.Files.deleteIfExists(commit.resolveSibling(".00000000000000000001.json.crc"))
    val e = intercept[TxlogException](DeltaLog.forTable(spark, t).changes(1L).collect())
    assert(e.errorClass === "MALFORMED_LOG_FILE")
    assert(e.getMessage.contains("'one'"))
  }

  inTurn("column mapping (name mode) as table_changes") {
    ranges(mapped)
  }

  test("deletion vectors (DELETE and UPDATE) as table_changes") {
    ranges(withDvs)
    val deletes = DeltaLog.forTable(spark, withDvs).changes(2L, 2L)
    assert(
      Rows.sorted(deletes.select("id", "_change_type")) ===
        Seq("{11, delete}", "{3, delete}", "{4, delete}")
    )
    val log = DeltaLog.forTable(spark, withDvs)
    val listing = log.listing()
    val snap = log.snapshot()
    val files = ChangeFiles.of(
      spark,
      listing,
      1L,
      snap.version,
      snap.metadata,
      snap.metadata,
      CommitTimeline(listing, snap.protocol, snap.metadata)
    )
    info(
      s"change files: ${files.count(_.changeType.isEmpty)} cdc, " +
        s"${files.count(_.keep.isDefined)} read as the difference of two deletion vectors"
    )
  }

  test("by timestamp: first commit at or after the start, last at or before the end") {
    val log = DeltaLog.forTable(spark, plain)
    val times = log
      .history()
      .selectExpr("version", "CAST(timestamp AS STRING)")
      .collect()
      .map(r => r.getLong(0) -> r.getString(1))
      .toMap
    for ((s, e) <- Seq((1L, 3L), (2L, 2L))) {
      agree(
        log.changesAsOf(times(s), times(e)),
        ref(plain, s"'${times(s)}'", s"'${times(e)}'"),
        s"timestamps of versions $s and $e"
      )
    }
    val later = intercept[TxlogException](log.changesAsOf("2999-01-01", "2999-01-02"))
    assert(later.errorClass === "TIMESTAMP_OUT_OF_RANGE")
    intercept[Exception](ref(plain, "'2999-01-01'", "'2999-01-02'").collect())
    agree(
      log.changesAsOf("2000-01-01", times(2L)),
      ref(plain, "'2000-01-01'", s"'${times(2L)}'"),
      "a start before the first commit"
    )
  }

  test("versions where the feed was off: CHANGE_DATA_NOT_RECORDED naming the first of them") {
    val t = table(
      "off",
      "CREATE TABLE $t (id INT) USING delta",
      "INSERT INTO $t VALUES (1)",
      s"ALTER TABLE $$t SET TBLPROPERTIES ($Cdf)",
      "INSERT INTO $t VALUES (2)",
      "ALTER TABLE $t SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'false')",
      s"ALTER TABLE $$t SET TBLPROPERTIES ($Cdf)",
      "ALTER TABLE $t SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'false')"
    )
    val log = DeltaLog.forTable(spark, t)
    val before = intercept[TxlogException](log.changes(0L, 3L))
    assert(before.errorClass === "CHANGE_DATA_NOT_RECORDED")
    assert(before.version === Some(0L))
    intercept[Exception](ref(t, 0, 3).collect())
    agree(log.changes(2L, 3L), ref(t, 2, 3), "the versions with the feed on")
    val after = intercept[TxlogException](log.changes(2L))
    assert(after.errorClass === "CHANGE_DATA_NOT_RECORDED")
    assert(after.version === Some(4L))
    intercept[Exception](ref(t, 2, 4).collect())
  }

  test("ranges that do not exist: VERSION_NOT_FOUND, INVALID_ARGUMENT; an end past the latest") {
    val log = DeltaLog.forTable(spark, plain)
    val last = latest(plain)
    assert(intercept[TxlogException](log.changes(last + 1)).errorClass === "VERSION_NOT_FOUND")
    assert(intercept[TxlogException](log.changes(3L, 2L)).errorClass === "INVALID_ARGUMENT")
    assert(intercept[TxlogException](log.changes(-1L, 2L)).errorClass === "INVALID_ARGUMENT")
    intercept[Exception](ref(plain, last + 1, last + 2).collect())
    intercept[Exception](ref(plain, 3, 2).collect())
    agree(log.changes(1L, last + 10), ref(plain, 1, last + 10), "an end past the latest")
  }

  test("the txlog data source with readChangeFeed and its options") {
    def read(options: (String, String)*) =
      spark.read.format("txlog").options(options.toMap).load(plain)
    def delta(options: (String, String)*) =
      spark.read.format("delta").options(options.toMap).load(plain)
    val range = Seq("readChangeFeed" -> "true", "startingVersion" -> "1", "endingVersion" -> "3")
    agree(read(range: _*), delta(range: _*), "the data source, versions 1 to 3")
    val from = Seq("readChangeFeed" -> "true", "startingVersion" -> "2")
    agree(read(from: _*), delta(from: _*), "the data source, from version 2")
    val ts = DeltaLog
      .forTable(spark, plain)
      .history()
      .where("version = 2")
      .selectExpr("CAST(timestamp AS STRING)")
      .head()
      .getString(0)
    val byTime = Seq("readChangeFeed" -> "true", "startingTimestamp" -> ts)
    agree(read(byTime: _*), delta(byTime: _*), "the data source, from a timestamp")
    val invalid = Seq(
      Seq("readChangeFeed" -> "true", "startingVersion" -> "0", "readChangeData" -> "x"),
      Seq("startingVersion" -> "1"),
      Seq("readChangeFeed" -> "true"),
      Seq("readChangeFeed" -> "true", "startingVersion" -> "1", "startingTimestamp" -> ts),
      Seq("readChangeFeed" -> "true", "startingVersion" -> "1", "versionAsOf" -> "1"),
      Seq("readChangeFeed" -> "maybe", "startingVersion" -> "1")
    )
    invalid.foreach { o =>
      assert(intercept[TxlogException](read(o: _*)).errorClass === "INVALID_ARGUMENT", o)
    }
  }

  test("golden deltalog-getChanges: a commit's cdc files replace its adds and removes") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val path = Fixtures.path("golden/deltalog-getChanges")
    val log = DeltaLog.forTable(spark, path)
    val e = intercept[TxlogException](log.changes(0L, 2L))
    assert(e.errorClass === "CHANGE_DATA_NOT_RECORDED")
    assert(e.version === Some(0L))
    intercept[Exception](ref(path, 0, 2).collect()) // delta-spark refuses it too
    val listing = log.listing()
    val snap = log.snapshot()
    val md = snap.metadata
    val on = md.copy(configuration = md.configuration + (ChangeFiles.CdfProperty -> "true"))
    val files = ChangeFiles.of(
      spark,
      listing,
      0L,
      2L,
      on,
      md,
      CommitTimeline(listing, snap.protocol, md)
    )
    assert(
      files.map(f => (f.version, f.changeType, f.path.split("/").takeRight(2).mkString("/"))) ===
        Seq((0L, Some("insert"), "path/1"), (1L, None, "path/2"))
    )
  }

  override def afterAll(): Unit = {
    info(s"ranges compared with delta-spark: ${compared.get}")
    super.afterAll()
  }
}
