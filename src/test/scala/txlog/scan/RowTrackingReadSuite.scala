package txlog.scan

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}

import scala.util.Try

import org.apache.spark.sql.{AnalysisException, DataFrame}
import org.apache.spark.sql.functions.col

import txlog.{DeltaLog, SparkSuite, TxlogException}

/** Row tracking metadata in table reads (`_metadata.row_id`, `row_commit_version`, `base_row_id`,
  * `default_row_commit_version`), compared with what delta-spark reads of the tables it writes
  * here: inserts over several commits, an UPDATE and a MERGE (materialized row ids and commit
  * versions), a DELETE with deletion vectors, a partitioned table in column mapping name mode, row
  * tracking enabled on an existing table, and tables without row tracking.
  */
class RowTrackingReadSuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn

  private val fields =
    Seq("row_id", "row_commit_version", "base_row_id", "default_row_commit_version")

  /** The table's rows with their row tracking fields and file name (`_metadata.file_name`). */
  private def tracked(df: DataFrame): DataFrame =
    df.select(
      (col("id") +: fields.map(f => col(s"_metadata.$f")) :+ col("_metadata.file_name")): _*
    )

  private def ours(t: String, version: Option[Long] = None): DataFrame = {
    val log = DeltaLog.forTable(spark, t)
    version.fold(log.read())(log.read(_))
  }

  private def ref(t: String, version: Option[Long] = None): DataFrame = {
    val r = spark.read.format("delta")
    version.fold(r)(v => r.option("versionAsOf", v)).load(t)
  }

  private def sameAsDelta(t: String, version: Option[Long] = None): Seq[String] = {
    val expected = Rows.sorted(tracked(ref(t, version)))
    assert(Rows.sorted(tracked(ours(t, version))) === expected, s"at version $version")
    expected
  }

  private def latest(t: String): Long = DeltaLog.forTable(spark, t).snapshot().version

  private def create(name: String, columns: String, props: String, extra: String = ""): String = {
    val t = tempDir(name).resolve("t").toString
    spark.sql(s"CREATE TABLE delta.`$t` ($columns) USING delta $extra TBLPROPERTIES ($props)")
    t
  }

  /** Three inserts (versions 1 to 3), an UPDATE, a MERGE and a DELETE, deletion vectors on. */
  private lazy val changed: String = {
    val t = create(
      "rt-changed",
      "id BIGINT, v STRING",
      "'delta.enableRowTracking' = 'true', 'delta.enableDeletionVectors' = 'true'"
    )
    Seq((0, 10), (10, 20), (20, 25)).foreach { case (a, b) =>
      spark.sql(s"INSERT INTO delta.`$t` SELECT id, concat('v', id) FROM range($a, $b)")
    }
    spark.sql(s"UPDATE delta.`$t` SET v = 'updated' WHERE id % 4 = 0")
    spark.sql(
      s"MERGE INTO delta.`$t` AS t USING (SELECT id FROM range(20, 30)) AS s ON t.id = s.id " +
        "WHEN MATCHED THEN UPDATE SET v = 'merged' WHEN NOT MATCHED THEN INSERT (id, v) " +
        "VALUES (s.id, 'new')"
    )
    spark.sql(s"DELETE FROM delta.`$t` WHERE id % 7 = 3")
    t
  }

  test("inserts, UPDATE, MERGE and DELETE with deletion vectors: delta-spark's row tracking") {
    val t = changed
    val v = latest(t)
    val rows = sameAsDelta(t)
    assert(rows.size === 30 - Seq(3, 10, 17, 24).size)
    // the UPDATE and MERGE preserved row ids: some differ from the defaults
    val moved = ours(t).where(
      col("_metadata.row_id") =!= col("_metadata.base_row_id") + col("_metadata.row_index")
    )
    assert(moved.count() > 0, "no materialized row id was read")
    Seq(3L, v - 1).foreach(at => sameAsDelta(t, Some(at)))
    val files = DeltaLog.forTable(spark, t).snapshot().allFiles
    assert(files.where("deletionVector IS NOT NULL").count() > 0, "no deletion vector written")
  }

  test("the materialized columns stay out of the table's schema and rows") {
    val t = changed
    val md = DeltaLog.forTable(spark, t).snapshot().metadata.configuration
    val names = Seq(
      "delta.rowTracking.materializedRowIdColumnName",
      "delta.rowTracking.materializedRowCommitVersionColumnName"
    ).map(md)
    val dataFiles = DeltaLog.forTable(spark, t).snapshot().allFiles.select("path").collect()
    // every file's columns (without mergeSchema Spark takes one file's)
    val inFiles = spark.read
      .option("mergeSchema", "true")
      .parquet(dataFiles.map(r => s"$t/${r.getString(0)}").toIndexedSeq: _*)
      .columns
      .toSet
    assert(names.exists(inFiles), "delta-spark wrote no materialized column")
    assert(ours(t).columns.toSeq === ref(t).columns.toSeq)
    assert(ours(t).columns.toSeq === Seq("id", "v"))
    assert(Rows.sorted(ours(t)) === Rows.sorted(ref(t)))
  }

  test("filters on row tracking fields, with row_index and file_path, as delta-spark") {
    val t = changed
    def pick(df: DataFrame) = Rows.sorted(
      df.where("_metadata.row_id BETWEEN 5 AND 22 AND _metadata.row_commit_version > 2")
        .select("id", "_metadata.row_id", "_metadata.row_index", "_metadata.file_path")
    )
    val expected = pick(ref(t))
    assert(expected.nonEmpty)
    assert(pick(spark.read.format("txlog").load(t)) === expected)
    assert(
      Rows.sorted(ours(t).select("_metadata.row_id").distinct()).size === 26,
      "row ids are not unique"
    )
  }

  inTurn("a partitioned table, column mapping, no deletion vectors (files rewritten by UPDATE)") {
    val t = create(
      "rt-parts",
      "id BIGINT, p INT",
      "'delta.enableRowTracking' = 'true', 'delta.enableDeletionVectors' = 'false', " +
        "'delta.columnMapping.mode' = 'name'",
      "PARTITIONED BY (p)"
    )
    spark.sql(s"INSERT INTO delta.`$t` SELECT id, CAST(id % 3 AS INT) FROM range(0, 30)")
    spark.sql(s"INSERT INTO delta.`$t` SELECT id, CAST(id % 3 AS INT) FROM range(30, 40)")
    spark.sql(s"UPDATE delta.`$t` SET id = id + 100 WHERE p = 1 AND id < 20")
    assert(sameAsDelta(t).size === 40)
    sameAsDelta(t, Some(2L))
    val onePart = ours(t).where("p = 2").select("id", "_metadata.row_id")
    val refPart = ref(t).where("p = 2").select("id", "_metadata.row_id")
    assert(Rows.sorted(onePart) === Rows.sorted(refPart))
  }

  inTurn("row tracking enabled on an existing table (backfill), as delta-spark reads it") {
    val t = create("rt-backfill", "id BIGINT", "'delta.enableDeletionVectors' = 'false'")
    spark.sql(s"INSERT INTO delta.`$t` SELECT id FROM range(0, 8)")
    spark.sql(s"INSERT INTO delta.`$t` SELECT id FROM range(8, 12)")
    val enabled = Try(
      spark.sql(s"ALTER TABLE delta.`$t` SET TBLPROPERTIES ('delta.enableRowTracking' = 'true')")
    )
    assume(enabled.isSuccess, s"this delta-spark cannot enable row tracking: $enabled")
    spark.sql(s"INSERT INTO delta.`$t` SELECT id FROM range(12, 15)")
    assert(sameAsDelta(t).size === 15)
  }

  test("without row tracking enabled there are no row tracking fields, as in delta-spark") {
    val plain = create("rt-none", "id BIGINT", "'delta.enableDeletionVectors' = 'false'")
    val supported = create("rt-supported", "id BIGINT", "'delta.feature.rowTracking' = 'supported'")
    Seq(plain, supported).foreach { t =>
      spark.sql(s"INSERT INTO delta.`$t` SELECT id FROM range(0, 5)")
      fields.foreach { f =>
        intercept[AnalysisException](ref(t).select(s"_metadata.$f"))
        intercept[AnalysisException](ours(t).select(s"_metadata.$f"))
      }
      val names = (df: DataFrame) => Rows.sorted(df.select("id", "_metadata.file_name"))
      assert(names(ours(t)) === names(ref(t)))
    }
  }

  test("a live file without baseRowId while row tracking is enabled is MALFORMED_LOG_FILE") {
    val t = create("rt-broken", "id BIGINT", "'delta.enableRowTracking' = 'true'")
    spark.sql(s"INSERT INTO delta.`$t` SELECT id FROM range(0, 5)")
    val commit = Paths.get(t, "_delta_log", "00000000000000000001.json")
    val text = new String(Files.readAllBytes(commit), UTF_8)
    assert(text.contains("\"baseRowId\""))
    Files.write(commit, text.replaceAll("\"baseRowId\":[0-9]+,", "").getBytes(UTF_8))
    assert(ours(t).count() === 5)
    val e = intercept[Exception](ours(t).select("id", "_metadata.row_id").collect())
    val typed = Iterator
      .iterate[Throwable](e)(_.getCause)
      .takeWhile(_ != null)
      .collectFirst { case x: TxlogException => x }
      .getOrElse(fail(s"no typed error on the cause chain of $e", e))
    assert(typed.errorClass === "MALFORMED_LOG_FILE")
    assert(typed.getMessage.contains("baseRowId"))
  }
}
