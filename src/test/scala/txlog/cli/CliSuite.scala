package txlog.cli

import java.io.{ByteArrayOutputStream, PrintStream}
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.apache.spark.sql.delta.{DeltaLog => RefLog}

import txlog.{Fixtures, SparkSuite}
import txlog.inspect.Rules

/** `txlog.cli.Main`: JSON documents parsed with Jackson, exit codes, help and dry runs. */
class CliSuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn
  private val mapper = new ObjectMapper()
  // delta-spark's VACUUM spreads its listing over this many tasks (10,000 by default).
  override def extraConf: Map[String, String] =
    Map("spark.sql.sources.parallelPartitionDiscovery.parallelism" -> "4")

  /** (exit code, one JSON document per stdout line, stderr). */
  private def cli(args: String*): (Int, Seq[JsonNode], String) = {
    val (out, err) = (new ByteArrayOutputStream(), new ByteArrayOutputStream())
    val code = Main.run(spark, args, new PrintStream(out, true, "UTF-8"), new PrintStream(err))
    val text = out.toString("UTF-8")
    val docs =
      if (args.contains("--json")) text.split("\n").toSeq.filter(_.nonEmpty).map(mapper.readTree)
      else Nil
    (code, docs, err.toString("UTF-8") + (if (docs.isEmpty) text else ""))
  }

  test("describe --json: the contract's fields, agreeing with DESCRIBE DETAIL") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/multi-part-checkpoint", tempDir()).toString
    val (code, Seq(doc), err) = cli("describe", "--table", t, "--json")
    assert(code === 0)
    assert(doc.get("table").asText === t)
    assert(doc.get("command").asText === "describe")
    assert(!doc.get("dry_run").asBoolean)
    RefLog.clearCache()
    val ref = spark.sql(s"DESCRIBE DETAIL delta.`$t`").head()
    assert(doc.get("num_files").asLong === ref.getAs[Long]("numFiles"))
    assert(doc.get("size_in_bytes").asLong === ref.getAs[Long]("sizeInBytes"))
    assert(doc.get("id").asText === ref.getAs[String]("id"))
    assert(doc.get("health").get("checkpoint_kind").asText === "multipart")
    assert(err.contains(s"[txlog] $t: describe"), err)
  }

  test("validate --json: exit 0 on an intact table, 1 with the finding on a broken one") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/basic-with-inserts-deletes-checkpoint", tempDir())
    val (ok, Seq(clean), _) = cli("validate", "--table", t.toString, "--json")
    assert(ok === 0)
    assert(clean.get("findings").asScala.forall(_.get("severity").asText != "error"))
    Files.delete(t.resolve("_delta_log").resolve(f"${2}%020d.json"))
    val (code, Seq(doc), err) = cli("validate", "--table", t.toString, "--json")
    assert(code === 1, err)
    val gap = doc.get("findings").asScala.find(_.get("rule").asText == Rules.VersionContiguity)
    assert(gap.map(_.get("version").asLong) === Some(2L))
    assert(gap.map(_.get("severity").asText) === Some("error"))
    assert(
      Set("version", "file", "rule", "severity", "detail") subsetOf gap.get.fieldNames.asScala.toSet
    )
  }

  test("--tables-file: one document per table; the exit code is the highest") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val good = Fixtures.copy("golden/data-reader-partition-values", tempDir()).toString
    val missing = tempDir().resolve("nothing").toString
    val list = tempDir().resolve("tables.txt")
    Files.writeString(list, s"# tables\n$good\n$missing\n")
    val (code, docs, _) = cli("describe", "--tables-file", list.toString, "--json")
    assert(code === 5)
    assert(docs.map(_.get("table").asText) === Seq(good, missing))
    assert(docs(1).get("error").get("error_class").asText === "DELTA_TABLE_NOT_FOUND")
    assert(docs.map(_.get("exit_code").asInt) === Seq(0, 5))
    assert(docs.forall(d => d.has("retryable") && !d.get("retryable").asBoolean))
  }

  test("cleanup is a dry run unless --execute") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/checkpoint", tempDir())
    val before = t.resolve("_delta_log").toFile.list().toSet
    val (code, Seq(doc), _) =
      cli("cleanup", "--table", t.toString, "--json", "--retention", "0 days", "--force")
    assert(code === 0)
    assert(doc.get("dry_run").asBoolean)
    assert(doc.get("candidates").size > 0)
    assert(t.resolve("_delta_log").toFile.list().toSet === before)
    val (_, Seq(done), _) =
      cli(
        "cleanup",
        "--table",
        t.toString,
        "--json",
        "--retention",
        "0 days",
        "--execute",
        "--force"
      )
    assert(!done.get("dry_run").asBoolean)
    done.get("candidates").asScala.filter(_.get("kind").asText != "none").foreach { c =>
      val gone = !new java.io.File(new java.net.URI(c.get("path").asText)).exists()
      assert(c.get("deleted").asBoolean === gone)
    }
  }

  test("unsupported features exit 3; usage errors exit 2; help exits 0") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val refused = Fixtures.copy("kernel/catalog-owned-preview", tempDir()).toString
    assert(cli("describe", "--table", refused)._1 === 3)
    assert(cli("repair", "--table", refused)._1 === 3)
    assert(cli("describe")._1 === 2)
    assert(cli("frobnicate", "--table", refused)._1 === 2)
    val (h, _, help) = cli("--help")
    assert(h === 0)
    Seq("describe", "history", "checkpoint", "checksum", "compact-log", "cleanup", "validate")
      .foreach(c => assert(help.contains(c)))
    assert(help.contains("vacuum") && help.contains("repair"))
    assert(help.contains("restore the table to an older version"))
    assert(cli("vacuum", "--table", refused)._1 === 3)
    val (hc, _, cleanupHelp) = cli("cleanup", "--help")
    assert(hc === 0 && cleanupHelp.contains("--execute"))
  }

  test("mistyped, misplaced and valueless options are usage errors: nothing runs") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/basic-with-inserts-deletes-checkpoint", tempDir()).toString
    def latest() = { RefLog.clearCache(); RefLog.forTable(spark, t).update().version }
    val before = latest()
    val cases = Seq(
      Seq("restore", "--table", t, "--version", "3", "--dryrun", "--json") -> "'--dryrun'",
      Seq("restore", "--table", t, "--version", "--dry-run") -> "--version needs a value",
      Seq("vacuum", "--table", t, "--execute", "--retain-hours") -> "needs a value",
      Seq("vacuum", "--table", t, "--execute", "--version", "3") -> "'--version'",
      Seq("describe", "--table", t, "--force") -> "'--force'",
      Seq("repair", "--table", t, "--execute", "--validate") -> "'--validate'",
      Seq("restore", "--table", t, "--version", "3", "stray") -> "'stray'"
    )
    cases.foreach { case (argv, said) =>
      val (code, docs, err) = cli(argv: _*)
      assert(code === 2, argv)
      assert(err.contains(said) && err.contains("--help"), s"$argv: $err")
      // With --json, the one document says it too.
      val classes = docs.map(_.get("error").get("error_class").asText)
      assert(classes === docs.map(_ => "INVALID_ARGUMENT"))
      assert(docs.size === (if (argv.contains("--json")) 1 else 0), argv)
    }
    assert(latest() === before, "a usage error committed something")
    val (hc, _, help) = cli("restore", "--dryrun", "--help")
    assert(hc === 0 && help.contains("--timestamp"))
  }

  test("history, checkpoint --dry-run and checksum --validate print their documents") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t =
      Fixtures.copy("golden/commit-info-containing-arbitrary-operationParams-types", tempDir())
    val (hc, Seq(h), _) = cli("history", "--table", t.toString, "--json", "--limit", "2")
    assert(hc === 0 && h.get("history").size === 2)
    val (cc, Seq(c), _) = cli("checkpoint", "--table", t.toString, "--json", "--dry-run")
    assert(cc === 0 && c.get("dry_run").asBoolean && !c.get("written").asBoolean)
    assert(!t.resolve("_delta_log").toFile.list().exists(_.contains("checkpoint")))
    val (vc, Seq(v), _) = cli("checksum", "--table", t.toString, "--json", "--validate")
    assert(vc === 0 && v.get("valid").asBoolean)
  }

  test("vacuum is a dry run unless --execute; --json lists the files relative to the table") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/basic-with-inserts-deletes-checkpoint", tempDir())
    // The fixtures' files were copied here recently: make them older than the 7 days kept.
    Files.walk(t).iterator().asScala.filter(Files.isRegularFile(_)).foreach { f =>
      assert(f.toFile.setLastModified(System.currentTimeMillis() - 30L * 24 * 3600 * 1000))
    }
    RefLog.clearCache()
    val expected = spark
      .sql(s"VACUUM delta.`$t` DRY RUN")
      .collect()
      .map(r => t.toUri.relativize(new java.io.File(new java.net.URI(r.getString(0))).toURI))
      .map(_.getPath)
      .toSet
    assert(expected.nonEmpty)
    val (code, Seq(doc), _) = cli("vacuum", "--table", t.toString, "--json")
    assert(code === 0 && doc.get("dry_run").asBoolean)
    assert(doc.get("files").asScala.map(_.asText).toSet === expected)
    assert(doc.get("num_files").asLong === expected.size && doc.get("mode").asText === "full")
    assert(expected.forall(f => Files.exists(t.resolve(f))))
    val (short, Seq(refused), _) =
      cli("vacuum", "--table", t.toString, "--json", "--retain-hours", "1")
    assert(short === 3 && refused.get("exit_code").asInt === 3)
    assert(refused.get("error").get("error_class").asText === "VACUUM_RETENTION_TOO_SHORT")
    val (done, Seq(deleted), err) =
      cli("vacuum", "--table", t.toString, "--json", "--execute", "--lite")
    assert(done === 0, err)
    assert(!deleted.get("dry_run").asBoolean && deleted.get("mode").asText === "lite")
    assert(deleted.get("num_deleted_files").asLong === expected.size)
    assert(expected.forall(f => !Files.exists(t.resolve(f))))
    val (hc, _, vacuumHelp) = cli("vacuum", "--help")
    assert(hc === 0 && vacuumHelp.contains("--retain-hours") && vacuumHelp.contains("--lite"))
  }

  inTurn("restore: --dry-run and a commit report delta-spark's metrics; a missing file exits 3") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val name = "golden/basic-with-inserts-deletes-checkpoint"
    val t = Fixtures.copy(name, tempDir())
    val ref = Fixtures.copy(name, tempDir())
    RefLog.clearCache()
    val refOut = io.delta.tables.DeltaTable.forPath(spark, ref.toString).restoreToVersion(2L).head()
    val (dc, Seq(dry), _) =
      cli("restore", "--table", t.toString, "--json", "--version", "2", "--dry-run")
    assert(dc === 0 && dry.get("dry_run").asBoolean && dry.get("version").isNull)
    val (code, Seq(doc), err) = cli("restore", "--table", t.toString, "--json", "--version", "2")
    assert(code === 0, err)
    assert(!doc.get("dry_run").asBoolean && doc.get("restored_version").asLong === 2L)
    Seq(dry, doc).foreach { d =>
      assert(d.get("table_size_after_restore").asLong === refOut.getLong(0))
      assert(d.get("num_of_files_after_restore").asLong === refOut.getLong(1))
      assert(d.get("num_removed_files").asLong === refOut.getLong(2))
      assert(d.get("num_restored_files").asLong === refOut.getLong(3))
      assert(d.get("removed_files_size").asLong === refOut.getLong(4))
      assert(d.get("restored_files_size").asLong === refOut.getLong(5))
    }
    RefLog.clearCache()
    assert(doc.get("version").asLong === RefLog.forTable(spark, t.toString).update().version)
    // A file of an older version that is not live now, deleted from storage.
    val log = txlog.DeltaLog.forTable(spark, t.toString)
    def files(s: txlog.Snapshot) = s.allFiles.select("path").collect().map(_.getString(0)).toSet
    val now = files(log.snapshot())
    val (v, gone) = (0L until 14L).iterator
      .map(v => v -> (files(log.snapshot(v)) -- now))
      .collectFirst { case (v, g) if g.nonEmpty => v -> g.head }
      .get
    Files.delete(t.resolve(gone))
    val (vc, Seq(refusal), _) =
      cli("restore", "--table", t.toString, "--json", "--version", v.toString)
    assert(vc === 3)
    assert(refusal.get("error").get("error_class").asText === "RESTORE_MISSING_FILES")
    assert(refusal.get("error").get("message").asText.contains(gone))
    val (fc, Seq(forced), _) =
      cli("restore", "--table", t.toString, "--json", "--version", v.toString, "--force")
    assert(fc === 0 && !forced.get("version").isNull)
    val (uc, _, usage) = cli("restore", "--table", t.toString)
    assert(uc === 2 && usage.contains("exactly one"), usage)
    val (hc, _, restoreHelp) = cli("restore", "--help")
    assert(hc === 0 && restoreHelp.contains("--timestamp") && restoreHelp.contains("--force"))
  }

  test("restore --timestamp without a zone is UTC, whatever the session's time zone") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/basic-with-inserts-deletes-checkpoint", tempDir()).toString
    RefLog.clearCache()
    val at = io.delta.tables.DeltaTable
      .forPath(spark, t)
      .history()
      .where("version = 2")
      .select("timestamp")
      .head()
      .getTimestamp(0)
    val utc = java.time.format.DateTimeFormatter
      .ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
      .withZone(java.time.ZoneOffset.UTC)
      .format(at.toInstant)
    val key = "spark.sql.session.timeZone"
    val before = spark.conf.get(key)
    spark.conf.set(key, "Pacific/Kiritimati") // UTC+14: read there, the time is before v0
    try {
      val (code, Seq(doc), err) =
        cli("restore", "--table", t, "--json", "--dry-run", "--timestamp", utc)
      assert(code === 0, err)
      assert(doc.get("restored_version").asLong === 2L)
    } finally spark.conf.set(key, before)
  }

  inTurn(
    "repair: a dry run by default (exit 1 when there is work), --execute, two tables at once"
  ) {
    assume(Fixtures.available, Fixtures.skipMessage)
    val broken = Fixtures.copy("golden/data-reader-partition-values", tempDir())
    val intact = Fixtures.copy("golden/basic-with-inserts-deletes-checkpoint", tempDir())
    val line = Files
      .readAllLines(broken.resolve("_delta_log/00000000000000000000.json"))
      .asScala
      .find(_.contains("\"add\""))
      .get
    val path = mapper.readTree(line).get("add").get("path").asText()
    Files.delete(broken.resolve(new java.net.URI(path).getPath))
    val tables = Seq("--table", broken.toString, "--table", intact.toString)
    val (dc, Seq(plan, clean), _) = cli(Seq("repair", "--json", "--force") ++ tables: _*)
    assert(dc === 1)
    assert(plan.get("command").asText === "repair" && plan.get("dry_run").asBoolean)
    assert(plan.get("num_files_removed").asLong === 1 && plan.get("commit_version").isNull)
    val acts = plan.get("actions").elements().asScala.toSeq
    assert(
      acts.map(a => (a.get("action").asText, a.get("file").asText)) ===
        Seq("remove-file" -> path)
    )
    assert(clean.get("actions").size === 0 && clean.get("num_not_repairable").asLong === 0)
    RefLog.clearCache()
    val refBefore = RefLog.forTable(spark, broken.toString).update()
    val (before, filesBefore) = (refBefore.version, refBefore.allFiles.count())
    // One of the 3 files is more than 10% of them: refused (exit 3) unless forced.
    val (rc, Seq(refused, _), _) = cli(Seq("repair", "--json", "--execute") ++ tables: _*)
    assert(rc === 3 && refused.get("exit_code").asInt === 3)
    assert(refused.get("error").get("error_class").asText === "REPAIR_TOO_MANY_LOST_FILES")
    val (ec, Seq(done, _), err) =
      cli(Seq("repair", "--json", "--execute", "--force") ++ tables: _*)
    assert(ec === 0, err)
    assert(!done.get("dry_run").asBoolean && done.get("commit_version").asLong === before + 1)
    RefLog.clearCache()
    val after = RefLog.forTable(spark, broken.toString).update()
    assert(after.version === before + 1 && after.allFiles.count() === filesBefore - 1)
    assert(after.allFiles.where(s"path = '$path'").count() === 0)
    assert(err.contains(s"[txlog] $broken: check data and deletion vector files"), err)
    val (hc, _, help) = cli("repair", "--help")
    assert(hc === 0 && help.contains("--execute") && help.contains("FSCK"))
  }
}
