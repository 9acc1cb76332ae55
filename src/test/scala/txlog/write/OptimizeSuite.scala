package txlog.write

import java.nio.file.Paths

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.functions.col

import txlog.{DeltaLog, SparkSuite, TxlogException}
import txlog.scan.Rows

/** `DeltaLog.optimize` against delta-spark's OPTIMIZE on a copy of the same table: the same rows at
  * the new version in delta-spark and txlog, the same number of files per partition, every older
  * version still readable, and adds and removes that change no data.
  */
class OptimizeSuite extends SparkSuite {

  /** A delta-spark table: 2 partitions of 6 small files each, deletion vectors on, a delete that
    * leaves deletion vectors on some files.
    */
  private def table(name: String, props: String = ""): String = {
    val t = tempDir(name).resolve("t").toString
    val extra = if (props.isEmpty) "" else s", $props"
    spark.sql(
      s"CREATE TABLE delta.`$t` (id BIGINT, name STRING, p STRING) USING delta PARTITIONED BY (p) " +
        s"TBLPROPERTIES ('delta.enableDeletionVectors' = 'true'$extra)"
    )
    spark
      .sql(
        "SELECT id, concat('n', id) AS name, CASE WHEN id % 2 = 0 THEN 'a' ELSE 'b' END AS p " +
          "FROM range(0, 600)"
      )
      .repartition(6)
      .write
      .format("delta")
      .mode("append")
      .save(t)
    spark.sql(s"DELETE FROM delta.`$t` WHERE id % 10 = 3")
    t
  }

  private def copyOf(t: String): String = {
    val c = tempDir("optimize-copy").resolve("t")
    FileUtils.copyDirectory(Paths.get(t).toFile, c.toFile)
    c.toString
  }

  private def filesPerPartition(t: String): Map[String, Long] =
    DeltaLog
      .forTable(spark, t)
      .snapshot()
      .allFiles
      .groupBy(col("partitionValues_parsed.p"))
      .count()
      .collect()
      .map(r => r.getString(0) -> r.getLong(1))
      .toMap

  private def rows(t: String, version: Option[Long] = None): Seq[String] = {
    val reader = spark.read.format("delta")
    Rows.sorted(version.fold(reader)(v => reader.option("versionAsOf", v)).load(t))
  }

  test("compacts each partition into one file, as delta-spark's OPTIMIZE does") {
    val t = table("optimize-basic")
    val theirs = copyOf(t)
    val before = DeltaLog.forTable(spark, t).snapshot()
    val expected = rows(t)
    val r = DeltaLog.forTable(spark, t).optimize()
    spark.sql(s"OPTIMIZE delta.`$theirs`")
    assert(r.committed && r.version === before.version + 1)
    assert(filesPerPartition(t) === filesPerPartition(theirs))
    assert(filesPerPartition(t) === Map("a" -> 1L, "b" -> 1L))
    assert(rows(t) === expected)
    assert(Rows.sorted(DeltaLog.forTable(spark, t).read()) === expected)
    assert(rows(t, Some(before.version)) === expected)
    assert(rows(t, Some(0L)).isEmpty)
    val history = spark.sql(s"DESCRIBE HISTORY delta.`$t` LIMIT 1").collect().head
    val theirsHistory = spark.sql(s"DESCRIBE HISTORY delta.`$theirs` LIMIT 1").collect().head
    assert(history.getAs[String]("operation") === "OPTIMIZE")
    def metric(h: org.apache.spark.sql.Row, k: String) =
      h.getAs[Map[String, String]]("operationMetrics")(k)
    Seq("numRemovedFiles", "numAddedFiles").foreach { k =>
      assert(metric(history, k) === metric(theirsHistory, k), k)
    }
    assert(r.numRemovedFiles === metric(history, "numRemovedFiles").toLong)
    val commit = spark.read.json(Paths.get(t, "_delta_log", f"${r.version}%020d.json").toString)
    assert(commit.where("add IS NOT NULL AND add.dataChange").isEmpty)
    assert(commit.where("remove IS NOT NULL AND remove.dataChange").isEmpty)
    assert(
      DeltaLog.forTable(spark, t).snapshot().allFiles.where("deletionVector IS NOT NULL").isEmpty
    )
  }

  test("bins of a target size: the file counts of delta-spark's OPTIMIZE with that size") {
    val t = table("optimize-bins")
    val theirs = copyOf(t)
    val sizes =
      DeltaLog.forTable(spark, t).snapshot().allFiles.select("size").collect().map(_.getLong(0))
    val target = sizes.sorted.apply(sizes.length / 2) * 3
    val expected = rows(t)
    val dry = DeltaLog.forTable(spark, t).optimize(targetSize = target, dryRun = true)
    assert(!dry.committed && dry.numAddedFiles === 0)
    assert(
      DeltaLog.forTable(spark, t).snapshot().version === DeltaLog
        .forTable(spark, theirs)
        .snapshot()
        .version
    )
    val r = DeltaLog.forTable(spark, t).optimize(targetSize = target)
    assert(r.numBins === dry.numBins && r.numRemovedFiles === dry.numRemovedFiles)
    val key = "spark.databricks.delta.optimize.maxFileSize"
    spark.conf.set(key, target.toString)
    try spark.sql(s"OPTIMIZE delta.`$theirs`")
    finally spark.conf.unset(key)
    assert(filesPerPartition(t) === filesPerPartition(theirs))
    assert(filesPerPartition(t).values.sum > 2)
    assert(rows(t) === expected)
  }

  test("where: only the partitions it selects; another column is INVALID_ARGUMENT") {
    val t = table("optimize-where")
    val log = DeltaLog.forTable(spark, t)
    val e = intercept[TxlogException](log.optimize(where = Some("id > 3")))
    assert(e.errorClass === "INVALID_ARGUMENT")
    val before = filesPerPartition(t)
    log.optimize(where = Some("p = 'a'"))
    assert(filesPerPartition(t) === Map("a" -> 1L, "b" -> before("b")))
    val nothing = log.optimize(where = Some("p = 'a'"))
    assert(!nothing.committed && nothing.numBins === 0)
  }

  test("column mapping tables compact; row tracking tables are refused") {
    val mapped = table("optimize-cm", "'delta.columnMapping.mode' = 'name'")
    val expected = rows(mapped)
    DeltaLog.forTable(spark, mapped).optimize()
    assert(rows(mapped) === expected)
    assert(filesPerPartition(mapped) === Map("a" -> 1L, "b" -> 1L))
    val tracked = table("optimize-rt", "'delta.enableRowTracking' = 'true'")
    val e = intercept[TxlogException](DeltaLog.forTable(spark, tracked).optimize())
    assert(e.errorClass === "UNSUPPORTED_WRITER_FEATURES")
  }

  test("the optimize command: a dry run unless --execute, one JSON document each") {
    val t = table("optimize-cli")
    def cli(args: String*): (Int, com.fasterxml.jackson.databind.JsonNode) = {
      val out = new java.io.ByteArrayOutputStream()
      val err = new java.io.PrintStream(new java.io.ByteArrayOutputStream())
      val code = txlog.cli.Main.run(spark, args, new java.io.PrintStream(out, true, "UTF-8"), err)
      (code, new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString("UTF-8")))
    }
    val version = DeltaLog.forTable(spark, t).snapshot().version
    val (code, dry) = cli("optimize", "--table", t, "--json", "--where", "p = 'a'")
    assert(code === 0 && dry.get("dry_run").asBoolean && dry.get("num_removed_files").asLong === 6)
    assert(DeltaLog.forTable(spark, t).snapshot().version === version)
    val (done, doc) = cli("optimize", "--table", t, "--json", "--execute")
    assert(done === 0 && doc.get("committed").asBoolean && doc.get("num_added_files").asLong === 2)
    assert(DeltaLog.forTable(spark, t).snapshot().version === version + 1)
  }
}
