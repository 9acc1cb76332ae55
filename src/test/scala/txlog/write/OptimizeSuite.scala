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
class OptimizeSuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn

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

  inTurn("compacts each partition into one file, as delta-spark's OPTIMIZE does") {
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

  inTurn("the bins' rows: one RDD partition per group of files, deletion vectors applied") {
    val t = table("file-groups")
    val snap = DeltaLog.forTable(spark, t).snapshot()
    val files = snap.allFiles.select("path", "partitionValues_parsed.p").collect().toSeq
    val uri =
      (path: String) => txlog.replay.FileKeys.canonicalPath(snap.tablePath, path).toUri.toString
    val groups =
      Seq("a", "b").map(p => files.filter(_.getString(1) == p).map(r => uri(r.getString(0))))
    val only = snap.allFiles.select("path")
    val (rdd, schema) = txlog.scan.FileGroups.rows(snap, only, groups)
    assert(schema.fieldNames.toSeq === Seq("id", "name", "p"))
    assert(rdd.getNumPartitions === 2)
    val perGroup = rdd
      .mapPartitionsWithIndex((i, it) => Iterator(i -> it.map(_.getUTF8String(2).toString).toSet))
      .collect()
      .toSeq
    val theirs = spark.read.format("delta").load(t).groupBy("p").count().collect()
    val counts = rdd.mapPartitionsWithIndex((i, it) => Iterator(i -> it.size.toLong)).collect()
    // the rows delta-spark reads per partition value (the delete's deletion vectors applied)
    assert(
      counts.toMap === Map(
        0 -> theirs.find(_.getString(0) == "a").get.getLong(1),
        1 -> theirs.find(_.getString(0) == "b").get.getLong(1)
      )
    )
    assert(perGroup.toMap === Map(0 -> Set("a"), 1 -> Set("b")))
    // a group naming a file the selection lacks is refused before any row is read
    val stray = s"${snap.tablePath}/p=a/not-live.parquet"
    val e = intercept[TxlogException](
      txlog.scan.FileGroups.rows(snap, only, Seq(groups.head :+ stray))
    )
    assert(e.errorClass === "INVALID_COMMIT_ACTIONS", e.getMessage)
    assert(e.getMessage.contains("not-live.parquet"), e.getMessage)
  }

  inTurn("bins of a target size: the file counts of delta-spark's OPTIMIZE with that size") {
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

  /** Each row's `_metadata.row_id` and `row_commit_version` by `id`, read by delta-spark. */
  private def rowIds(t: String): Map[Long, (Long, Long)] = spark
    .sql(s"SELECT id, _metadata.row_id, _metadata.row_commit_version FROM delta.`$t`")
    .collect()
    .map(r => r.getLong(0) -> (r.getLong(1), r.getLong(2)))
    .toMap

  inTurn("column mapping and row tracking tables compact; rows keep their ids and versions") {
    val mapped = table("optimize-cm", "'delta.columnMapping.mode' = 'name'")
    val expected = rows(mapped)
    DeltaLog.forTable(spark, mapped).optimize()
    assert(rows(mapped) === expected)
    assert(filesPerPartition(mapped) === Map("a" -> 1L, "b" -> 1L))
    val tracked = table("optimize-rt", "'delta.enableRowTracking' = 'true'")
    val copy = copyOf(tracked)
    val ids = rowIds(tracked)
    val log = DeltaLog.forTable(spark, tracked)
    assert(log.optimize().committed)
    assert(filesPerPartition(tracked) === Map("a" -> 1L, "b" -> 1L))
    // every row keeps its id and commit version (materialized in the new files), as delta-spark's
    // OPTIMIZE of a copy keeps them; txlog's reader gives the same
    assert(rowIds(tracked) === ids)
    spark.sql(s"OPTIMIZE delta.`$copy`").collect()
    assert(rowIds(copy) === ids)
    val ours = log
      .read()
      .select("id", "_metadata.row_id", "_metadata.row_commit_version")
      .collect()
      .map(r => r.getLong(0) -> (r.getLong(1), r.getLong(2)))
      .toMap
    assert(ours === ids)
    // new rows get ids no row had
    spark.sql(s"INSERT INTO delta.`$tracked` VALUES (1000, 'x', 'a')")
    assert(!ids.values.exists(_._1 == rowIds(tracked)(1000L)._1))
  }

  private def cli(args: String*): (Int, com.fasterxml.jackson.databind.JsonNode) = {
    val out = new java.io.ByteArrayOutputStream()
    val err = new java.io.PrintStream(new java.io.ByteArrayOutputStream())
    val code = txlog.cli.Main.run(spark, args, new java.io.PrintStream(out, true, "UTF-8"), err)
    (code, new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString("UTF-8")))
  }

  private def lastOperation(t: String): (String, Map[String, String]) = {
    val h = spark.sql(s"DESCRIBE HISTORY delta.`$t` LIMIT 1").collect().head
    (h.getAs[String]("operation"), h.getAs[Map[String, String]]("operationMetrics"))
  }

  private def noDataChange(t: String, version: Long): Unit = {
    val commit = spark.read.json(Paths.get(t, "_delta_log", f"$version%020d.json").toString)
    assert(commit.where("add IS NOT NULL AND add.dataChange").isEmpty)
    assert(commit.where("remove IS NOT NULL AND remove.dataChange").isEmpty)
  }

  private def withDv(t: String): Long =
    DeltaLog.forTable(spark, t).snapshot().allFiles.where("deletionVector IS NOT NULL").count()

  inTurn("purge: the files with deletion vectors rewritten without them, as delta-spark's REORG") {
    val t = table("purge-basic")
    val theirs = copyOf(t)
    val log = DeltaLog.forTable(spark, t)
    val before = log.snapshot().version
    val dvFiles = withDv(t)
    assert(dvFiles > 0)
    val expected = rows(t)
    val dry = log.purgeDeletionVectors(dryRun = true)
    assert(!dry.committed && dry.numRemovedFiles === dvFiles)
    assert(log.snapshot().version === before)
    val r = log.purgeDeletionVectors()
    spark.sql(s"REORG TABLE delta.`$theirs` APPLY (PURGE)")
    assert(r.committed && r.version === before + 1)
    assert(withDv(t) === 0 && withDv(theirs) === 0)
    assert(filesPerPartition(t) === filesPerPartition(theirs))
    assert(rows(t) === expected && rows(theirs) === expected)
    assert(Rows.sorted(DeltaLog.forTable(spark, t).read()) === expected)
    assert(rows(t, Some(before)) === expected)
    val (op, metrics) = lastOperation(t)
    val (theirOp, theirMetrics) = lastOperation(theirs)
    assert(op === "REORG" && theirOp === "REORG")
    Seq("numRemovedFiles", "numAddedFiles").foreach(k => assert(metrics(k) === theirMetrics(k), k))
    noDataChange(t, r.version)
    val again = log.purgeDeletionVectors()
    assert(!again.committed && again.numRemovedFiles === 0)
  }

  inTurn("a concurrent delete of a compacted file leaves out its bin, not the run") {
    val t = table("optimize-concurrent")
    val ctx = DeltaLog.forTable(spark, t).context
    val target = Optimize.DefaultTargetSize
    val plan = Optimize.plan(ctx, None, target, target, purge = false)
    assert(plan.bins.size === 2)
    // between OPTIMIZE's plan and its commit: partition a deleted, a row appended to b
    spark.sql(s"DELETE FROM delta.`$t` WHERE p = 'a'")
    spark
      .sql("SELECT 1000L AS id, 'n1000' AS name, 'b' AS p")
      .write
      .format("delta")
      .mode("append")
      .save(t)
    val expected = rows(t)
    assert(expected.size === 241) // b: 300 odd ids, 60 deleted (id % 10 = 3); 1 appended
    val r = Optimize.run(ctx, plan, dryRun = false)
    assert(r.committed && r.numBins === 1 && r.numConflictedBins === 1)
    assert(r.numRemovedFiles === 6 && r.numAddedFiles === 1)
    assert(rows(t) === expected)
    assert(filesPerPartition(t) === Map("b" -> 2L)) // the compacted file and the appended one
    noDataChange(t, r.version)
  }

  test("a concurrent delete of every compacted file commits nothing") {
    val t = table("optimize-concurrent-all")
    val ctx = DeltaLog.forTable(spark, t).context
    val plan = Optimize.plan(ctx, Some("p = 'a'"), 1L << 30, 1L << 30, purge = false)
    spark.sql(s"DELETE FROM delta.`$t` WHERE p = 'a'")
    val version = DeltaLog.forTable(spark, t).snapshot().version
    val r = Optimize.run(ctx, plan, dryRun = false)
    assert(!r.committed && r.version === version && r.numConflictedBins === 1)
    assert(DeltaLog.forTable(spark, t).snapshot().version === version)
  }

  test("the purge command: commits unless --dry-run, as the API (it deletes no file)") {
    val t = table("purge-cli")
    val version = DeltaLog.forTable(spark, t).snapshot().version
    val (code, dry) = cli("purge", "--table", t, "--json", "--dry-run")
    assert(code === 0 && dry.get("dry_run").asBoolean)
    assert(dry.get("num_removed_files").asLong === withDv(t))
    assert(DeltaLog.forTable(spark, t).snapshot().version === version)
    val (done, doc) = cli("purge", "--table", t, "--json")
    assert(done === 0 && doc.get("committed").asBoolean && !doc.get("dry_run").asBoolean)
    assert(withDv(t) === 0)
  }

  test("the optimize command: commits unless --dry-run, one JSON document each") {
    val t = table("optimize-cli")
    val version = DeltaLog.forTable(spark, t).snapshot().version
    val (code, dry) = cli("optimize", "--table", t, "--json", "--where", "p = 'a'", "--dry-run")
    assert(code === 0 && dry.get("dry_run").asBoolean && dry.get("num_removed_files").asLong === 6)
    assert(DeltaLog.forTable(spark, t).snapshot().version === version)
    val (done, doc) = cli("optimize", "--table", t, "--json")
    assert(done === 0 && doc.get("committed").asBoolean && doc.get("num_added_files").asLong === 2)
    assert(DeltaLog.forTable(spark, t).snapshot().version === version + 1)
  }
}
