package txlog.sql

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.hadoop.fs.Path

import txlog.{ErrorClasses, Oracle, SparkSuite, TxlogException}
import txlog.scan.Rows

/** txlog's table-valued functions (`txlog_files(path)`, ...) against delta-spark's answers for the
  * same table: its live files and tombstones (the reference snapshot), `DESCRIBE HISTORY`,
  * `table_changes_by_path` and `DESCRIBE DETAIL`; a checksum file altered by the test; and the
  * refusals of bad arguments.
  */
class TableFunctionsSuite extends SparkSuite {

  /** A table delta-spark wrote: 3 appends, an UPDATE and a DELETE, the change data feed on. */
  private lazy val path: String = {
    val p = tempDir("functions").resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$p` (id BIGINT, p STRING) USING delta " +
        "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true', " +
        "'delta.enableDeletionVectors' = 'false')"
    )
    (0 until 3).foreach { i =>
      spark
        .range(i * 10L, i * 10L + 10)
        .selectExpr("id", "cast(id % 2 as string) AS p")
        .repartition(1)
        .write
        .format("delta")
        .mode("append")
        .save(p)
    }
    spark.sql(s"UPDATE delta.`$p` SET p = 'u' WHERE id = 3")
    spark.sql(s"DELETE FROM delta.`$p` WHERE id >= 20")
    p
  }

  private def names(paths: Seq[String]): Set[String] = paths.map(new Path(_).getName).toSet

  test("txlog_files and txlog_tombstones: delta-spark's live files and tombstones") {
    for (version <- Seq(None, Some(2L))) {
      val ref = Oracle.reference(spark, path, version)
      val arg = version.fold("")(v => s", $v")
      val files = spark.sql(s"SELECT path, size FROM txlog_files('$path'$arg)").collect()
      assert(names(files.map(_.getString(0)).toSeq) == names(ref.live.toSeq.map(_._1)))
      assert(files.map(_.getLong(1)).sorted.toSeq == ref.live.toSeq.map(_._3).sorted)
      val tombstones = spark.sql(s"SELECT path FROM txlog_tombstones('$path'$arg)")
      assert(
        names(tombstones.collect().map(_.getString(0)).toSeq) == names(
          ref.tombstones.toSeq.map(_._1)
        )
      )
    }
    assert(Oracle.reference(spark, path, None).tombstones.nonEmpty, "the test's table has some")
  }

  test("txlog_history and txlog_changes: delta-spark's history and table_changes_by_path") {
    val theirs = spark.sql(s"DESCRIBE HISTORY delta.`$path`").selectExpr("version", "operation")
    val ours = spark.sql(s"SELECT version, operation FROM txlog_history('$path')")
    assert(ours.collect().toSeq == theirs.collect().toSeq)
    val two = spark.sql(s"SELECT version FROM txlog_history('$path', 2)").collect()
    assert(two.map(_.getLong(0)).toSeq == Seq(5L, 4L))
    for ((start, end) <- Seq((1L, Some(3L)), (2L, None))) {
      val arg = end.fold("")(e => s", $e")
      val to = end.getOrElse(5L)
      val ref = spark.sql(s"SELECT * FROM table_changes_by_path('$path', $start, $to)")
      val got = spark.sql(s"SELECT * FROM txlog_changes('$path', $start$arg)")
      assert(Rows.sorted(got) == Rows.sorted(ref), s"[$start, $end]")
    }
  }

  test("txlog_describe: delta-spark's DESCRIBE DETAIL; txlog_validate_checksum: an altered file") {
    val detail = spark.sql(s"DESCRIBE DETAIL delta.`$path`").collect().head
    val json = spark.sql(s"SELECT json FROM txlog_describe('$path')").collect().map(_.getString(0))
    val d = new ObjectMapper().readTree(json.head)
    assert(json.length == 1)
    assert(d.get("id").asText == detail.getAs[String]("id"))
    assert(d.get("num_files").asLong == detail.getAs[Long]("numFiles"))
    assert(d.get("size_in_bytes").asLong == detail.getAs[Long]("sizeInBytes"))
    assert(d.get("version").asLong == 5L)
    // delta-spark's checksum of version 5 agrees; altered, its numFiles is the mismatch
    assert(spark.sql(s"SELECT * FROM txlog_validate_checksum('$path')").count() == 0)
    val crc = Paths.get(path, "_delta_log", f"${5}%020d.crc")
    val text = new String(Files.readAllBytes(crc), UTF_8)
    val files = detail.getAs[Long]("numFiles")
    Files.write(
      crc,
      text
        .replace(s""""numFiles":$files""", s""""numFiles":${files + 7}""")
        .getBytes(UTF_8)
    )
    val bad = spark.sql(s"SELECT field, expected, actual FROM txlog_validate_checksum('$path', 5)")
    assert(
      bad.collect().map(r => (r.getString(0), r.getString(1), r.getString(2))).toSeq ==
        Seq(("numFiles", (files + 7).toString, files.toString))
    )
    Files.write(crc, text.getBytes(UTF_8))
  }

  test(
    "bad arguments: INVALID_ARGUMENT naming the function; a version not held: VERSION_NOT_FOUND"
  ) {
    def error(sql: String): TxlogException =
      intercept[Throwable](spark.sql(sql).collect()) match {
        case t: TxlogException => t
        case other =>
          Iterator
            .iterate(other)(_.getCause)
            .takeWhile(_ != null)
            .collectFirst { case t: TxlogException =>
              t
            }
            .getOrElse(fail(s"$sql: $other"))
      }
    for (
      sql <- Seq(
        "SELECT * FROM txlog_files()",
        "SELECT * FROM txlog_files(1)",
        s"SELECT * FROM txlog_files('$path', -1)",
        s"SELECT * FROM txlog_files('$path', 1, 2)",
        s"SELECT * FROM txlog_changes('$path')",
        s"SELECT * FROM txlog_history('$path', 'x')"
      )
    ) {
      val e = error(sql)
      assert(e.errorClass == ErrorClasses.InvalidArgument && e.getMessage.contains("txlog_"), sql)
    }
    assert(error(s"SELECT * FROM txlog_files('$path', 99)").errorClass == "VERSION_NOT_FOUND")
  }
}
