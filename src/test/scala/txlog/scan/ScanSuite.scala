package txlog.scan

import java.nio.file.{Files, Path}

import org.apache.spark.SparkException
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.plans.logical.Filter
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types.StructType

import txlog.{DeltaLog, SparkSuite, TxlogException}
import txlog.protocol.FileColumns

/** Reading rows of tables delta-spark writes here: partition values of every type (special
  * characters and nulls included), data skipping (never more files read than delta-spark reads, the
  * same rows), the `txlog` data source and its options, column mapping after renames and drops,
  * deletion vectors, and the typed errors of missing files.
  */
class ScanSuite extends SparkSuite {

  private lazy val partitioned: String = {
    val t = tempDir("scan-parts").resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$t` (id INT, name STRING, amount DOUBLE, d DATE, ts TIMESTAMP, " +
        "dec DECIMAL(10,2), p STRING, q INT) USING delta PARTITIONED BY (p, q)"
    )
    val parts = Seq("'a'", "'b c'", "'x=1/%'", "NULL", "''", "'ünï'")
    parts.zipWithIndex.foreach { case (p, i) =>
      spark.sql(
        s"INSERT INTO delta.`$t` SELECT id, CASE WHEN id % 7 = 0 THEN NULL ELSE " +
          s"concat('n', id) END, id * 1.5, date_add(DATE'2024-01-01', CAST(id AS INT)), " +
          s"timestamp_seconds(1700000000 + id * 3600), CAST(id / 3 AS DECIMAL(10,2)), $p, " +
          s"${if (i == 3) "NULL" else i.toString} FROM range(${i * 10}, ${i * 10 + 10})"
      )
    }
    t
  }

  private lazy val allFiles: Long = DeltaLog.forTable(spark, partitioned).snapshot().numFiles

  private def both(path: String, where: String): ((Long, Seq[String]), (Long, Seq[String])) = {
    val ours = ScanPlans.filesRead(DeltaLog.forTable(spark, path).read().where(where))
    val ref = ScanPlans.filesRead(spark.read.format("delta").load(path).where(where))
    (ours, ref)
  }

  test("partition values of every type, special characters and nulls read as delta-spark") {
    val ours = DeltaLog.forTable(spark, partitioned).read()
    val ref = spark.read.format("delta").load(partitioned)
    assert(Rows.schema(ours) === Rows.schema(ref))
    assert(Rows.sorted(ours) === Rows.sorted(ref))
    assert(ours.count() === 60)
  }

  Seq(
    "p = 'b c'",
    "p = 'x=1/%' OR q = 4",
    "p IS NULL",
    "q IS NULL",
    "q IN (1, 5)",
    "id >= 25 AND id < 32",
    "id = 41",
    "name IS NULL",
    "name IN ('n3', 'n44')",
    "d > DATE'2024-02-05'",
    "ts < TIMESTAMP'2023-11-15 00:00:00'",
    "dec BETWEEN 5 AND 6",
    "name LIKE 'n5%'",
    "NOT (id < 50)",
    "p = 'a' AND id > 5"
  ).foreach { where =>
    test(s"skipping reads no more files than delta-spark, same rows: $where") {
      val ((files, rows), (refFiles, refRows)) = both(partitioned, where)
      assert(rows === refRows)
      assert(files <= refFiles, s"txlog read $files files, delta-spark $refFiles")
      info(s"files read: txlog $files, delta-spark $refFiles, of $allFiles")
    }
  }

  test("a partition filter holding a scalar subquery is applied whole: delta-spark's rows") {
    val where = "q = (SELECT max(id) FROM range(2))"
    val ours = Rows.sorted(DeltaLog.forTable(spark, partitioned).read().where(where))
    assert(ours === Rows.sorted(spark.read.format("delta").load(partitioned).where(where)))
    assert(ours.size === 10)
  }

  test("data skipping reads only the files whose statistics may match") {
    val ((files, rows), _) = both(partitioned, "id = 41")
    assert(rows.size === 1)
    assert(files === 1)
    val ((none, noRows), _) = both(partitioned, "id > 1000")
    assert(noRows.isEmpty && none === 0)
  }

  test("data skipping parses the statistics of the columns its filters name, and no others") {
    val where = "id = 5 AND (name IS NOT NULL OR q > 2) AND p = 'a' AND upper(name) > 'N'"
    val df = DeltaLog.forTable(spark, partitioned).read().where(where)
    val filters = df.queryExecution.optimizedPlan.collect { case f: Filter => f.condition }
    val snapshot = DeltaLog.forTable(spark, partitioned).snapshot()
    val named = ReadSpec(snapshot).skipping.columns(filters)
    assert(named === Set(Seq("id"), Seq("name")), "partition columns have no statistics")
    val md = snapshot.metadata
    val parsed = snapshot.allFiles.select(
      FileColumns.statsParsed(col("stats"), md).as("all"),
      FileColumns.statsParsed(col("stats"), md, Some(named)).as("named")
    )
    val fields = parsed.schema("named").dataType.asInstanceOf[StructType]
    def names(f: String) = fields(f).dataType.asInstanceOf[StructType].fieldNames.toSeq
    assert(names("minValues") === Seq("id", "name") && names("maxValues") === Seq("id", "name"))
    assert(names("nullCount") === Seq("id", "name"))
    val same = Seq("numRecords", "minValues.id", "maxValues.name", "nullCount.name")
      .map(f => col(s"all.$f") <=> col(s"named.$f"))
      .reduce(_ && _)
    assert(parsed.where(!same).isEmpty && parsed.where(col("named.minValues.id").isNull).isEmpty)
    val ((files, rows), (refFiles, refRows)) = both(partitioned, where)
    assert(rows === refRows && rows.size === 1 && files === 1 && files <= refFiles)
  }

  test("spark.read.format(\"txlog\") with versionAsOf and timestampAsOf") {
    val t = tempDir("scan-tt").resolve("t").toString
    spark.range(0, 5).write.format("delta").save(t)
    spark.range(5, 8).write.format("delta").mode("append").save(t)
    val v0 = spark.read.format("txlog").option("versionAsOf", 0).load(t)
    assert(v0.count() === 5)
    assert(spark.read.format("txlog").load(t).count() === 8)
    val ts = DeltaLog.forTable(spark, t).snapshot(0L).timestamp
    val asOf = new java.sql.Timestamp(ts).toString
    assert(spark.read.format("txlog").option("timestampAsOf", asOf).load(t).count() === 5)
    val unknown = intercept[TxlogException] {
      spark.read.format("txlog").option("versionAsof", 0).option("mergeSchema", "true").load(t)
    }
    assert(unknown.errorClass === "INVALID_ARGUMENT")
    assert(unknown.getMessage.toLowerCase.contains("mergeschema"))
    val twice = intercept[TxlogException] {
      spark.read.format("txlog").option("versionAsOf", 0).option("timestampAsOf", asOf).load(t)
    }
    assert(twice.errorClass === "INVALID_ARGUMENT")
    val bad = intercept[TxlogException] {
      spark.read.format("txlog").option("versionAsOf", "-1").load(t)
    }
    assert(bad.errorClass === "INVALID_ARGUMENT")
    val missing = intercept[TxlogException] {
      spark.read.format("txlog").option("versionAsOf", 9).load(t)
    }
    assert(missing.errorClass === "VERSION_NOT_FOUND")
  }

  Seq("name", "id").foreach { mode =>
    test(s"column mapping ($mode mode): renamed, dropped and nested columns read as delta-spark") {
      val t = tempDir(s"scan-cm-$mode").resolve("t").toString
      spark.sql(
        s"CREATE TABLE delta.`$t` (id INT, s STRUCT<a: INT, b: STRING>, gone STRING, p STRING) " +
          s"USING delta PARTITIONED BY (p) TBLPROPERTIES ('delta.columnMapping.mode' = '$mode')"
      )
      spark.sql(
        s"INSERT INTO delta.`$t` VALUES (1, struct(10, 'x'), 'g', 'p1'), " +
          "(2, struct(20, 'y'), 'h', 'p2')"
      )
      spark.sql(s"ALTER TABLE delta.`$t` RENAME COLUMN id TO key")
      spark.sql(s"ALTER TABLE delta.`$t` RENAME COLUMN s.a TO alpha")
      spark.sql(s"ALTER TABLE delta.`$t` DROP COLUMN gone")
      spark.sql(s"ALTER TABLE delta.`$t` ADD COLUMN later STRING")
      spark.sql(s"INSERT INTO delta.`$t` VALUES (3, struct(30, 'z'), 'p1', 'new')")
      val ours = DeltaLog.forTable(spark, t).read()
      val ref = spark.read.format("delta").load(t)
      assert(Rows.schema(ours) === Rows.schema(ref))
      assert(Rows.sorted(ours) === Rows.sorted(ref))
      assert(Rows.sorted(ours.where("key = 3 AND s.alpha = 30")).size === 1)
      val ((files, rows), (refFiles, refRows)) = both(t, "key > 2")
      assert(rows === refRows && files <= refFiles)
    }
  }

  private lazy val withDvs: String = {
    val t = tempDir("scan-dv").resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$t` (id BIGINT, p INT) USING delta PARTITIONED BY (p) " +
        "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
    )
    spark.sql(s"INSERT INTO delta.`$t` SELECT id, CAST(id % 3 AS INT) FROM range(0, 300)")
    spark.sql(s"DELETE FROM delta.`$t` WHERE id % 5 = 0")
    spark.sql(s"DELETE FROM delta.`$t` WHERE id BETWEEN 100 AND 120")
    t
  }

  test("deletion vectors written by delta-spark: the rows it reads") {
    val ours = DeltaLog.forTable(spark, withDvs).read()
    val ref = spark.read.format("delta").load(withDvs)
    val files = DeltaLog.forTable(spark, withDvs).snapshot().allFiles
    assert(files.where("deletionVector IS NOT NULL").count() > 0, "no deletion vector written")
    assert(Rows.sorted(ours) === Rows.sorted(ref))
    assert(
      Rows.sorted(ours.where("p = 1 AND id > 200")) ===
        Rows.sorted(ref.where("p = 1 AND id > 200"))
    )
  }

  /** A copy of `path` with the files `pick` chooses deleted. */
  private def copyWithout(path: String, pick: Path => Boolean): String = {
    val to = tempDir("scan-missing").resolve("t")
    org.apache.commons.io.FileUtils.copyDirectory(new java.io.File(path), to.toFile)
    val walk = Files.walk(to)
    try walk.filter(p => Files.isRegularFile(p) && pick(p)).forEach(p => Files.delete(p))
    finally walk.close()
    to.toString
  }

  private def typedCause(e: Throwable): TxlogException =
    Iterator
      .iterate(e)(_.getCause)
      .takeWhile(_ != null)
      .collectFirst { case t: TxlogException => t }
      .getOrElse(fail(s"no typed error on the cause chain of $e", e))

  test("a missing deletion vector file is DELETION_VECTOR_NOT_FOUND, naming the data file") {
    val t = copyWithout(withDvs, _.getFileName.toString.startsWith("deletion_vector_"))
    val e = intercept[SparkException](DeltaLog.forTable(spark, t).read().collect())
    val typed = typedCause(e)
    assert(typed.errorClass === "DELETION_VECTOR_NOT_FOUND")
    assert(typed.file.exists(_.endsWith(".parquet")))
    assert(typed.version.contains(DeltaLog.forTable(spark, t).snapshot().version))
  }

  test("a missing data file is DATA_FILE_NOT_FOUND, naming it") {
    val victim = DeltaLog
      .forTable(spark, partitioned)
      .snapshot()
      .allFiles
      .where("partitionValues_parsed.p = 'b c'")
      .select("path")
      .head()
      .getString(0)
    val name = new org.apache.hadoop.fs.Path(new java.net.URI(victim)).getName
    val t = copyWithout(partitioned, _.getFileName.toString == name)
    val e = intercept[SparkException](DeltaLog.forTable(spark, t).read().collect())
    val typed = typedCause(e)
    assert(typed.errorClass === "DATA_FILE_NOT_FOUND")
    assert(typed.file.exists(_.contains(name)))
    // in SQL too, as a SparkThrowable with the class and its SQLSTATE
    DeltaLog.forTable(spark, t).read().createOrReplaceTempView("scan_missing_file")
    val sql =
      intercept[SparkException](spark.sql("SELECT count(*) FROM scan_missing_file").collect())
    val thrown = Iterator.iterate[Throwable](sql)(_.getCause).takeWhile(_ != null).collectFirst {
      case st: org.apache.spark.SparkThrowable if st.getSqlState == "42K03" => st
    }
    assert(thrown.map(_.getErrorClass) === Some("DATA_FILE_NOT_FOUND"), sql)
    assert(thrown.get.getMessageParameters.get("file").contains(name))
    // a query whose partition filter skips the file does not need it
    assert(DeltaLog.forTable(spark, t).read().where("p = 'a'").count() === 10)
  }

  test("a partition value that is not of its column's type is refused, never read as null") {
    val t = tempDir("scan-badpv").resolve("t")
    spark.sql(s"CREATE TABLE delta.`$t` (id INT, q INT) USING delta PARTITIONED BY (q)")
    spark.sql(s"INSERT INTO delta.`$t` VALUES (1, 1), (2, 2)")
    val commit = t.resolve("_delta_log").resolve("00000000000000000001.json")
    val text = new String(Files.readAllBytes(commit), "UTF-8")
    assert(text.contains("\"q\":\"1\""))
    Files.write(commit, text.replace("\"q\":\"1\"", "\"q\":\"one\"").getBytes("UTF-8"))
    Files.deleteIfExists(t.resolve("_delta_log").resolve(".00000000000000000001.json.crc"))
    Seq("", "q = 2", "q IS NULL").foreach { where =>
      val df = DeltaLog.forTable(spark, t.toString).read()
      val e = intercept[TxlogException]((if (where.isEmpty) df else df.where(where)).collect())
      assert(e.errorClass === "MALFORMED_LOG_FILE", where)
      assert(e.getMessage.contains("'one'") && e.getMessage.contains("q"), where)
    }
  }

  test("a DataFrame run again reads the files it selected, without selecting them again") {
    val df = DeltaLog.forTable(spark, partitioned).read().where("p = 'a' AND id > 3")
    val index = df.queryExecution.optimizedPlan.collectFirst {
      case l: org.apache.spark.sql.execution.datasources.LogicalRelation =>
        l.relation
          .asInstanceOf[org.apache.spark.sql.execution.datasources.HadoopFsRelation]
          .location
          .asInstanceOf[SnapshotFileIndex]
    }.get
    val rows = df.count()
    assert(index.selections.get === 1)
    assert(Rows.sorted(df).size.toLong === rows)
    assert(index.selections.get === 1, "the same filters selected files again")
    assert(df.where("id > 5").count() < rows)
    assert(index.selections.get === 2, "other filters must select again")
  }

  test("Spark's plan reads through txlog's file index, and the data source is registered") {
    val df: DataFrame = spark.read.format("txlog").load(partitioned).where("p = 'a'")
    val scan = ScanPlans.scans(df)
    assert(scan.size === 1)
    assert(scan.head.relation.location.isInstanceOf[SnapshotFileIndex])
    assert(df.count() === 10)
  }
}
