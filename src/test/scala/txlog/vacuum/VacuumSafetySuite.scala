package txlog.vacuum

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.delta.{DeltaLog => RefLog}

import txlog.{DeltaLog, Fixtures, SparkSuite, TxlogException}
import txlog.testing.{Fault, FaultInjectingFileSystem => Faulty}
import txlog.txn.TxnTestKit

/** What VACUUM must never do, and the errors and commits around it: nothing outside the table root
  * is touched (actions naming paths elsewhere, a symbolic link to a directory outside), nor
  * `_delta_log`; a retention shorter than the table's is refused unless forced; unknown writer
  * features are refused; a lite vacuum needs the commits it reads; VACUUM START/END commits are
  * written as delta-spark writes them and read by its history.
  */
class VacuumSafetySuite extends SparkSuite with VacuumTestKit with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn
  override def extraConf: Map[String, String] = vacuumConf ++ Faulty.conf
  private val Day = 24L * 3600 * 1000

  /** A table delta-spark writes: two appends (unpartitioned). */
  private def table(name: String = "t"): Path = {
    val t = tempDir().resolve(name)
    spark.range(0, 5).write.format("delta").save(t.toString)
    spark.range(5, 10).write.format("delta").mode("append").save(t.toString)
    t
  }

  private def vacuum(
      t: Path,
      hours: Option[Double],
      lite: Boolean = false,
      dryRun: Boolean = false
  ) =
    DeltaLog.forTable(spark, t.toString).vacuum(hours, dryRun, lite, force = true)

  test("actions naming files outside the root (absolute, '..'): reported, never deleted") {
    val t = table()
    val outside = Files.createDirectories(t.getParent.resolve("outside"))
    val rel = write(outside.resolve("x.parquet"), "x")
    val abs = write(outside.resolve("abs.parquet"), "y")
    val hidden = write(t.resolve("_delta_log/_hidden_data.parquet"), "z")
    Seq(rel, abs, hidden).foreach(age(_, 30 * Day))
    val log = DeltaLog.forTable(spark, t.toString)
    val names = Seq("../outside/x.parquet", abs.toUri.toString, "_delta_log/_hidden_data.parquet")
    log
      .startTransaction()
      .addFiles(
        TxnTestKit
          .adds(spark, names)
          .drop("partitionValues")
          .withColumn(
            "partitionValues",
            org.apache.spark.sql.functions.typedLit(Map.empty[String, String])
          )
      )
      .commit()
    log.startTransaction().removeFiles(TxnTestKit.removes(spark, names)).commit()
    val dry = vacuum(t, Some(0.0), lite = true, dryRun = true)
    assert(dry.numSkippedPaths === 3, dry.skippedPathExamples)
    assert(dry.skippedPathExamples.exists(_.contains("outside")), dry.skippedPathExamples)
    assert(dry.skippedPathExamples.exists(_.contains("hidden")), dry.skippedPathExamples)
    dry.unpersist()
    // Lite first: a full vacuum records that later lite ones need not read these commits.
    Seq(true, false).foreach { lite =>
      vacuum(t, Some(0.0), lite).unpersist()
      assert(Seq(rel, abs, hidden).forall(Files.exists(_)), s"lite=$lite deleted outside files")
    }
    // What delta-spark lists, it lists too (the outside files are in neither).
    assert(ourDryRun(t, Some(0)).get === refDryRun(t, Some(0)).get)
  }

  test("a symbolic link to a directory outside the table is not followed") {
    val t = table()
    val outside = Files.createDirectories(t.getParent.resolve("elsewhere"))
    val victim = write(outside.resolve("part-00000-victim.parquet"), "v")
    val fileVictim = write(outside.resolve("lone.parquet"), "w")
    age(victim, 30 * Day)
    age(fileVictim, 30 * Day)
    Files.createSymbolicLink(t.resolve("linked"), outside)
    Files.createSymbolicLink(t.resolve("linked.parquet"), fileVictim)
    val r = vacuum(t, Some(0.0))
    val listed = r.files.collect().map(_.getAs[String]("path")).toSet
    r.unpersist()
    assert(!listed.exists(_.startsWith("linked")), listed)
    assert(Files.exists(victim) && Files.exists(fileVictim))
    assert(Files.isSymbolicLink(t.resolve("linked")))
  }

  test("a retention shorter than the table's is refused unless forced; negative never") {
    val t = table()
    val log = DeltaLog.forTable(spark, t.toString)
    val short = intercept[TxlogException](log.vacuum(Some(100.0)))
    assert(short.errorClass === "VACUUM_RETENTION_TOO_SHORT")
    assert(short.getMessage.contains("168 hours") && short.getMessage.contains(t.toString))
    // delta-spark refuses it too (with its check on).
    spark.conf.set("spark.databricks.delta.retentionDurationCheck.enabled", "true")
    try {
      RefLog.clearCache()
      intercept[Exception](spark.sql(s"VACUUM delta.`$t` RETAIN 100 HOURS DRY RUN").collect())
    } finally spark.conf.set("spark.databricks.delta.retentionDurationCheck.enabled", "false")
    log.vacuum(Some(100.0), force = true).unpersist()
    log.vacuum(Some(168.0)).unpersist()
    val negative = intercept[TxlogException](log.vacuum(Some(-1.0), force = true))
    assert(negative.errorClass === "INVALID_ARGUMENT")
    spark.sql(
      s"ALTER TABLE delta.`$t` SET TBLPROPERTIES " +
        "('delta.deletedFileRetentionDuration' = 'interval 2 hours')"
    )
    val r = log.vacuum(Some(2.0))
    assert(r.retentionMillis === 2 * 3600 * 1000L)
    r.unpersist()
    // Hours are rounded as delta-spark rounds them: 1.4 is 1, below 2.
    assert(
      intercept[TxlogException](log.vacuum(Some(1.4))).errorClass ===
        "VACUUM_RETENTION_TOO_SHORT"
    )
  }

  test("a negative table retention: refused by the writer, and by vacuum and cleanup reading it") {
    val t = table()
    val log = DeltaLog.forTable(spark, t.toString)
    val key = "delta.deletedFileRetentionDuration"
    // delta-spark refuses to set it.
    intercept[Exception](
      spark.sql(s"ALTER TABLE delta.`$t` SET TBLPROPERTIES ('$key' = 'interval -1 days')")
    )
    Seq(key, "delta.logRetentionDuration", "delta.setTransactionRetentionDuration").foreach { k =>
      val md = log.snapshot().metadata
      val e = intercept[TxlogException](
        log
          .startTransaction()
          .updateMetadata(md.copy(configuration = md.configuration + (k -> "interval -1 days")))
          .commit()
      )
      assert(e.errorClass === "INVALID_METADATA" && e.getMessage.contains(k), e.getMessage)
    }
    // A log another writer left with one: vacuum and cleanup refuse before deleting anything.
    val orphan = write(t.resolve("orphan.parquet"), "o")
    age(orphan, 30 * Day)
    val v = log.snapshot().version + 1
    val md = TxnTestKit.commitLines(t, 0).find(_.has("metaData")).get.get("metaData")
    val conf = md.get("configuration").asInstanceOf[com.fasterxml.jackson.databind.node.ObjectNode]
    conf.put(key, "interval -30 days").put("delta.logRetentionDuration", "-1 hours")
    Files.writeString(t.resolve(f"_delta_log/$v%020d.json"), s"""{"metaData":$md}\n""")
    val bad = DeltaLog.forTable(spark, t.toString)
    Seq[() => Any](
      () => bad.vacuum(None, dryRun = false).unpersist(),
      () => bad.cleanup(None, dryRun = false).count()
    ).foreach { run =>
      val e = intercept[TxlogException](run())
      assert(e.errorClass === "INVALID_ARGUMENT", e.getMessage)
    }
    assert(Files.exists(orphan))
    assert(bad.snapshot().version === v)
  }

  test("VACUUM START and END: written as delta-spark writes them, read by its history") {
    val t = table()
    write(t.resolve("stray.parquet"), "s")
    age(t.resolve("stray.parquet"), 30 * Day)
    val copy = copyTable(t)
    val before = latestVersion(t)
    val dry = vacuum(t, Some(0.0), dryRun = true)
    assert(dry.startCommit.isEmpty && latestVersion(t) === before)
    dry.unpersist()
    val r = vacuum(t, Some(0.0))
    assert(r.startCommit === Some(before + 1) && r.endCommit === Some(before + 2))
    r.unpersist()
    refVacuum(copy, Some(0))
    def history(p: Path) = {
      RefLog.clearCache()
      spark
        .sql(s"DESCRIBE HISTORY delta.`$p`")
        .where("operation LIKE 'VACUUM%'")
        .select("version", "operation", "operationParameters", "operationMetrics")
        .collect()
        .map(r =>
          (
            r.getLong(0),
            r.getString(1),
            r.getMap[String, String](2).toMap,
            r.getMap[String, String](3).toMap
          )
        )
        .sortBy(_._1)
        .toSeq
    }
    val ours = history(t)
    val ref = history(copy)
    assert(ours.map(_._2) === Seq("VACUUM START", "VACUUM END"))
    assert(ours.map(o => (o._1, o._2, o._4)) === ref.map(o => (o._1, o._2, o._4)))
    // retentionCheckEnabled: txlog records whether the check applied (forced: false).
    assert(ours.map(_._3 - "retentionCheckEnabled") === ref.map(_._3 - "retentionCheckEnabled"))
    assert(ours.head._3("retentionCheckEnabled") === "false")
    assert(ours(1)._3("status") === "COMPLETED")
    val txlogHistory = DeltaLog.forTable(spark, t.toString).history()
    assert(txlogHistory.where("operation = 'VACUUM END'").count() === 1)
  }

  test("unknown writer features are refused; vacuumProtocolCheck is honoured") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val refused = Fixtures.copy("kernel/catalog-owned-preview", tempDir())
    val e = intercept[TxlogException](vacuum(refused, None, dryRun = true))
    assert(e.errorClass.startsWith("UNSUPPORTED_"), e.getMessage)
    val checked = Fixtures.copy("golden/basic-with-vacuum-protocol-check-feature", tempDir())
    val p = DeltaLog.forTable(spark, checked.toString).snapshot().protocol
    assert(p.writerFeatures.exists(_.contains("vacuumProtocolCheck")))
    assert(ourDryRun(checked, None).get === refDryRun(checked, None).get)
  }

  inTurn("lite needs the commits it reads: refused after they were cleaned up, until a full run") {
    val t = tempDir().resolve("lite")
    (0 until 4).foreach { i =>
      val w = spark.range(i * 5, i * 5 + 5).write.format("delta").mode("overwrite")
      (if (i == 0) w.option("delta.checkpointInterval", "2") else w).save(t.toString)
    }
    Files.delete(t.resolve("_delta_log/00000000000000000000.json"))
    val e = intercept[TxlogException](vacuum(t, Some(0.0), lite = true, dryRun = true))
    assert(e.errorClass === "VACUUM_LITE_NOT_POSSIBLE")
    RefLog.clearCache()
    intercept[Exception](spark.sql(s"VACUUM delta.`$t` LITE RETAIN 0 HOURS DRY RUN").collect())
    vacuum(t, Some(0.0)).unpersist()
    val info = new String(Files.readAllBytes(t.resolve("_delta_log/_last_vacuum_info")))
    assert(info.contains("latestCommitVersionOutsideOfRetentionWindow"), info)
    val lite = vacuum(t, Some(0.0), lite = true, dryRun = true)
    lite.unpersist()
    RefLog.clearCache()
    spark.sql(s"VACUUM delta.`$t` LITE RETAIN 0 HOURS DRY RUN").collect()
  }

  test("a dry run deletes nothing and commits nothing") {
    val t = table()
    write(t.resolve("stray.parquet"), "s")
    val before = tree(t)
    val logBefore = Files.list(t.resolve("_delta_log")).iterator().asScala.toSet
    val r = vacuum(t, Some(0.0), dryRun = true)
    assert(r.numFiles === 1 && r.numDeletedFiles === 0 && r.dryRun)
    assert(r.files.collect().forall(!_.getAs[Boolean]("deleted")))
    r.unpersist()
    assert(tree(t) === before)
    assert(Files.list(t.resolve("_delta_log")).iterator().asScala.toSet === logBefore)
  }

  test("deletes on the local file system answer as Hadoop's delete: checksums, missing, dirs") {
    val hadoopConf = spark.sparkContext.hadoopConfiguration
    val local = org.apache.hadoop.fs.FileSystem.getLocal(hadoopConf)
    val raw = local.getRawFileSystem
    // the same tree twice: one deleted by Hadoop, one by txlog's deleter
    def tree(fs: org.apache.hadoop.fs.FileSystem): Path = {
      val t = tempDir("deletes")
      Seq("a.parquet", "full/b.parquet").foreach { n =>
        val out = fs.create(new org.apache.hadoop.fs.Path(t.resolve(n).toUri))
        out.write(1)
        out.close()
      }
      Files.createDirectories(t.resolve("empty"))
      t
    }
    def files(t: Path) = {
      val s = Files.walk(t)
      try s.iterator().asScala.map(t.relativize(_).toString).toSet
      finally s.close()
    }
    for (fs <- Seq(local, raw)) {
      val (theirs, ours) = (tree(fs), tree(fs))
      assert(files(ours).contains(".a.parquet.crc") === (fs eq local), files(ours))
      val delete = ParallelDelete.deleter(fs)
      for (n <- Seq("a.parquet", "missing.parquet", "empty", "full", "full/b.parquet", "full")) {
        def at(t: Path) = new org.apache.hadoop.fs.Path(t.resolve(n).toUri)
        val expected =
          try fs.delete(at(theirs), false)
          catch { case _: java.io.IOException => false }
        assert(delete(at(ours)) === expected, s"$n on ${fs.getClass.getSimpleName}")
        assert(files(ours) === files(theirs), n)
      }
    }
  }

  test("the plan: one shuffle (grouping by path), no broadcast, nothing collected") {
    val sc = spark.sparkContext
    val candidates = sc.parallelize(
      Seq(Listed("a", 0L, isDir = true, 0L), Listed("a/x.parquet", 3L, isDir = false, 0L)),
      2
    )
    val kept = sc.parallelize(Seq("b.parquet"), 2)
    val diff = VacuumDiff.of(spark, candidates, kept, 1L, withParents = true)
    val plan = diff.queryExecution.executedPlan.toString
    assert("Exchange hashpartitioning".r.findAllMatchIn(plan).size === 1, plan)
    assert(!plan.contains("Broadcast") && !plan.contains("CollectLimit"), plan)
    assert(diff.collect().map(_.getString(0)).toSet === Set("a/x.parquet"))
  }

  test("deletes the storage refuses: counted, named, and the command line exits 4") {
    val t = table()
    val (orphan, stuck) =
      (write(t.resolve("gone.parquet"), "g"), write(t.resolve("stuck.parquet"), "s"))
    Seq(orphan, stuck).foreach(age(_, 30 * Day))
    Faulty.fail("stuck.parquet", Fault.AccessDenied)
    // One writer: the faulty scheme offers no atomic publish.
    spark.conf.set("spark.txlog.storage.singleWriter", "true")
    val (out, err) = (new java.io.ByteArrayOutputStream(), new java.io.ByteArrayOutputStream())
    val code =
      try
        txlog.cli.Main.run(
          spark,
          Seq("vacuum", "--table", s"${Faulty.Scheme}://$t", "--execute", "--json") ++
            Seq("--retain-hours", "0", "--force"),
          new java.io.PrintStream(out, true, "UTF-8"),
          new java.io.PrintStream(err, true, "UTF-8")
        )
      finally {
        Faulty.reset()
        spark.conf.unset("spark.txlog.storage.singleWriter")
      }
    withClue(err.toString("UTF-8") + out.toString("UTF-8")) { assert(code === 4) }
    val doc = new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString("UTF-8"))
    assert(doc.get("exit_code").asInt === 4 && doc.get("retryable").asBoolean, doc)
    assert(!doc.has("error"), doc)
    assert(doc.get("num_failed_deletes").asLong === 1 && doc.get("num_deleted_files").asLong === 1)
    assert(
      doc.get("failed_delete_examples").elements().asScala.map(_.asText).toSeq === Seq(
        "stuck.parquet"
      )
    )
    assert(!Files.exists(orphan) && Files.exists(stuck))
  }

  test("a storage failure listing the table is LOG_READ_FAILED naming the directory") {
    val t = table()
    write(t.resolve("sub/stray.parquet"), "s")
    Faulty.fail("sub", Fault.AccessDenied)
    try {
      val e = intercept[TxlogException](
        DeltaLog.forTable(spark, s"${Faulty.Scheme}://$t").vacuum(Some(0.0), force = true)
      )
      assert(e.errorClass === "LOG_READ_FAILED" && e.isRetryable)
      assert(e.file.exists(_.endsWith("/sub")), e.getMessage)
    } finally Faulty.reset()
    assert(Files.exists(t.resolve("sub/stray.parquet")))
  }

  test("a corrupt commit a lite vacuum reads is MALFORMED_LOG_FILE naming it and its version") {
    val t = table()
    vacuum(t, Some(0.0), lite = true, dryRun = true).unpersist()
    Files.writeString(
      t.resolve("_delta_log/00000000000000000001.json"),
      "{\"remove\": {\"path\": 7, \"deletionTimestamp\": \"soon\"}}\n",
      java.nio.file.StandardOpenOption.APPEND
    )
    val e = intercept[TxlogException](vacuum(t, Some(0.0), lite = true, dryRun = true))
    assert(e.errorClass === "MALFORMED_LOG_FILE", e.getMessage)
    assert(e.file.exists(_.endsWith("00000000000000000001.json")) && e.version === Some(1L))
  }
}
