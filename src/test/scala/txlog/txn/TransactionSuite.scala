package txlog.txn

import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.functions.{typedLit, col, lit}

import txlog.{DeltaLog, Oracle, Protocol, SparkSuite, TxlogException}
import txlog.txn.TxnTestKit._

class TransactionSuite extends SparkSuite {

  private def qualified(root: java.nio.file.Path, rel: String): String =
    new org.apache.hadoop.fs.Path(root.toUri.toString.stripSuffix("/") + "/" + rel).toString

  test("commits of adds, removes, txn, domain and metadata read back by delta-spark") {
    val dir = tempDir().resolve("t")
    val props = Map("delta.feature.domainMetadata" -> "supported")
    val log = DeltaLog.createTable(spark, dir.toString, schema, Seq("part"), props)
    val r1 = log.startTransaction().addFiles(adds(spark, Seq("a1", "a2", "a3"))).commit()
    assert(r1.version === 1L && r1.committed && r1.attempts === 1)
    val t2 = log.startTransaction()
    t2.removeFiles(removes(spark, Seq("a1")))
    t2.setAppTransaction("app-1", 7L)
    t2.setDomain("my.domain", """{"k":1}""")
    assert(t2.commit("DELETE").version === 2L)
    val t3 = log.startTransaction()
    val md = log.snapshot().metadata
    t3.updateMetadata(md.copy(configuration = Map("delta.appendOnly" -> "false", "x" -> "y")))
    t3.removeDomain("my.domain")
    assert(t3.commit("SET TBLPROPERTIES").version === 3L)

    def files(ps: String*) = ps.map(p => qualified(dir, p)).toSet
    val expected = Seq(
      (
        0L,
        Set.empty[String],
        Set.empty[String],
        Map.empty[String, Long],
        Map.empty[String, String]
      ),
      (
        1L,
        files("a1", "a2", "a3"),
        Set.empty[String],
        Map.empty[String, Long],
        Map.empty[String, String]
      ),
      (2L, files("a2", "a3"), files("a1"), Map("app-1" -> 7L), Map("my.domain" -> """{"k":1}""")),
      (3L, files("a2", "a3"), files("a1"), Map("app-1" -> 7L), Map.empty[String, String])
    )
    expected.foreach { case (v, live, tomb, txns, domains) =>
      val ref = Oracle.reference(spark, dir.toString, Some(v))
      assert(ref.live.map(_._1) === live, s"v$v live")
      assert(ref.tombstones.map(_._1) === tomb, s"v$v tombstones")
      assert(ref.txns === txns, s"v$v txns")
      assert(ref.domains === domains, s"v$v domains")
      assert(ref.metadata._3 === Seq("part"))
      assert(ref.metadata._2 === schema.json)
      assert(Oracle.txlog(spark, dir.toString, Some(v)) === ref, s"v$v txlog vs delta-spark")
    }
    assert(
      Oracle.reference(spark, dir.toString, Some(3)).metadata._4 ===
        Map("delta.appendOnly" -> "false", "x" -> "y")
    )
    val sizes = Oracle.reference(spark, dir.toString, Some(1)).live.map(f => f._1 -> f._3).toMap
    assert(sizes(qualified(dir, "a1")) === 100L && sizes(qualified(dir, "a3")) === 102L)
    // delta-spark's history reads our commitInfo.
    val hist = io.delta.tables.DeltaTable
      .forPath(spark, dir.toString)
      .history()
      .select("version", "operation")
      .collect()
      .map(r => r.getLong(0) -> r.getString(1))
      .toMap
    assert(
      hist === Map(0L -> "CREATE TABLE", 1L -> "WRITE", 2L -> "DELETE", 3L -> "SET TBLPROPERTIES")
    )
  }

  test("commitInfo is the first line with the spec's provenance fields") {
    val dir = tempDir().resolve("t")
    val log = DeltaLog.createTable(spark, dir.toString, schema, Seq("part"), Map.empty)
    log
      .startTransaction()
      .addFiles(adds(spark, Seq("f1")))
      .commit(
        "WRITE",
        Map("mode" -> "Append", "partitionBy" -> "[]"),
        Map("numFiles" -> "1")
      )
    val created = commitLines(dir, 0)
    assert(created.head.has("commitInfo"))
    assert(!created.head.get("commitInfo").has("readVersion"))
    assert(created.map(_.fieldNames().next()).toSet === Set("commitInfo", "protocol", "metaData"))
    val lines = commitLines(dir, 1)
    assert(lines.head.fieldNames().asScala.toSeq === Seq("commitInfo"))
    val ci = lines.head.get("commitInfo")
    assert(ci.get("operation").asText === "WRITE")
    assert(ci.get("operationParameters").get("mode").asText === "Append")
    assert(ci.get("operationParameters").get("partitionBy").asText === "[]")
    assert(ci.get("operationMetrics").get("numFiles").asText === "1")
    assert(ci.get("readVersion").asLong === 0L)
    assert(ci.get("isBlindAppend").asBoolean)
    assert(ci.get("engineInfo").asText.startsWith("txlog/"))
    assert(java.util.UUID.fromString(ci.get("txnId").asText) != null)
    assert(ci.get("isolationLevel").asText.nonEmpty)
    assert(ci.get("timestamp").asLong > 1700000000000L)
    assert(!ci.has("inCommitTimestamp"))
    val add = lines(1).get("add")
    assert(add.get("path").asText === "f1" && add.get("size").asLong === 100L)
    assert(add.get("partitionValues").get("part").asText === "a")
    assert(!add.has("stats") && !add.has("tags"), "null fields are left out")
  }

  test("in-commit timestamps: first in commitInfo, strictly increasing, read by delta-spark") {
    val dir = tempDir().resolve("t")
    val log = DeltaLog.createTable(spark, dir.toString, schema, Seq("part"), Map.empty)
    val t = log.startTransaction()
    // The property is enough: the writer rules add the inCommitTimestamp feature.
    t.updateMetadata(
      log.snapshot().metadata.copy(configuration = Map("delta.enableInCommitTimestamps" -> "true"))
    )
    t.commit("SET TBLPROPERTIES")
    (1 to 4).foreach(i => log.startTransaction().addFiles(adds(spark, Seq(s"f$i"))).commit())
    val icts = (1L to 5L).map(v =>
      commitLines(dir, v).head.get("commitInfo").get("inCommitTimestamp").asLong
    )
    assert(icts.sliding(2).forall(w => w(1) > w(0)), icts)
    // delta-spark's history reports the in-commit timestamps as commit timestamps.
    val ref = org.apache.spark.sql.delta.DeltaLog.forTable(spark, dir.toString)
    val hist = io.delta.tables.DeltaTable
      .forPath(spark, dir.toString)
      .history()
      .where("version >= 1")
      .select("version", "timestamp")
      .collect()
      .map(r => r.getLong(0) -> r.getTimestamp(1).getTime)
      .toMap
    assert((1L to 5L).map(hist) === icts)
    assert(ref.update().version === 5L)
  }

  test("several app ids: skipped only when all are done; some done is refused, nothing written") {
    val dir = tempDir().resolve("t")
    val log = DeltaLog.createTable(spark, dir.toString, schema, Seq("part"), Map.empty)
    log.startTransaction().setAppTransaction("a", 3L).setAppTransaction("b", 1L).commit()
    val before = snapshotDir(dir)
    def commit(a: Long, b: Long) =
      log
        .startTransaction()
        .setAppTransaction("a", a)
        .setAppTransaction("b", b)
        .addFiles(adds(spark, Seq(s"f-$a-$b")))
        .commit()
    assert(!commit(3L, 1L).committed)
    val e = intercept[TxlogException](commit(3L, 2L))
    assert(e.errorClass === "INVALID_COMMIT_ACTIONS")
    assert(e.getMessage.contains("a are at or past") && e.getMessage.contains("but b are not"))
    assert(snapshotDir(dir) === before)
    val r = commit(4L, 2L)
    assert(r.committed && r.version === 2L)
    assert(Oracle.reference(spark, dir.toString, None).txns === Map("a" -> 4L, "b" -> 2L))
  }

  test("idempotent transactions: a txn at or past the staged version commits nothing") {
    val dir = tempDir().resolve("t")
    val log = DeltaLog.createTable(spark, dir.toString, schema, Seq("part"), Map.empty)
    log.startTransaction().setAppTransaction("s", 5L).addFiles(adds(spark, Seq("f1"))).commit()
    val before = snapshotDir(dir)
    val t = log.startTransaction()
    assert(t.txnVersion("s") === Some(5L))
    val r = t.setAppTransaction("s", 5L).addFiles(adds(spark, Seq("f2"))).commit()
    assert(!r.committed)
    assert(snapshotDir(dir) === before)
    // Rebased onto a winner that set it past ours.
    val slow = log.startTransaction().setAppTransaction("s", 6L).addFiles(adds(spark, Seq("f3")))
    log.startTransaction().setAppTransaction("s", 7L).commit()
    assert(!slow.commit().committed)
    assert(Oracle.reference(spark, dir.toString, None).txns === Map("s" -> 7L))
    assert(Oracle.reference(spark, dir.toString, None).live.size === 1)
    val e = intercept[TxlogException](slow.commit())
    assert(e.errorClass === "INVALID_ARGUMENT")
  }

  test("a winner between start and commit: disjoint transactions both land after a retry") {
    val dir = tempDir().resolve("t")
    val log = DeltaLog.createTable(spark, dir.toString, schema, Seq("part"), Map.empty)
    log.startTransaction().addFiles(adds(spark, Seq("a1"), "a")).commit()
    val slow = DeltaLog.forTable(spark, dir.toString).startTransaction()
    slow.readFiles(col("partitionValues_parsed.part") === "b")
    slow.addFiles(adds(spark, Seq("b1"), "b"))
    val winner = log.startTransaction().addFiles(adds(spark, Seq("a2"), "a")).commit()
    assert(winner.version === 2L)
    val r = slow.commit()
    assert(r.version === 3L && r.attempts === 2)
    assert(commitLines(dir, 3).head.get("commitInfo").get("readVersion").asLong === 1L)
    assert(
      Oracle.reference(spark, dir.toString, None).live.map(_._1) ===
        Set("a1", "a2", "b1").map(qualified(dir, _))
    )
  }

  test("creating where a table exists is TABLE_ALREADY_EXISTS") {
    val dir = tempDir().resolve("t")
    DeltaLog.createTable(spark, dir.toString, schema, Nil, Map.empty)
    val before = snapshotDir(dir)
    val e = intercept[TxlogException](
      DeltaLog.createTable(spark, dir.toString, schema, Nil, Map.empty)
    )
    assert(e.errorClass === "TABLE_ALREADY_EXISTS")
    assert(snapshotDir(dir) === before)
    val other = tempDir().resolve("d")
    spark.range(1).write.format("delta").save(other.toString)
    assert(
      intercept[TxlogException](
        DeltaLog.createTable(spark, other.toString, schema, Nil, Map.empty)
      ).errorClass === "TABLE_ALREADY_EXISTS"
    )
    assert(Files.exists(dir.resolve("_delta_log")))
  }

  test("an append-only table refuses data-changing removes before anything is written") {
    val dir = tempDir().resolve("t")
    val props = Map("delta.appendOnly" -> "true")
    val log = DeltaLog.createTable(spark, dir.toString, schema, Seq("part"), props)
    log.startTransaction().addFiles(adds(spark, Seq("f1", "f2"))).commit()
    val before = snapshotDir(dir)
    val e = intercept[TxlogException](
      log.startTransaction().removeFiles(removes(spark, Seq("f1"))).commit()
    )
    // Spec, "Append-only Tables": writers must reject removes with dataChange = true.
    assert(e.errorClass === "APPEND_ONLY_VIOLATION")
    assert(snapshotDir(dir) === before)
    // A remove without data change (a rewrite) is allowed.
    val rewrite = removes(spark, Seq("f2")).withColumn("dataChange", lit(false))
    val r = log.startTransaction().removeFiles(rewrite).addFiles(adds(spark, Seq("f3"))).commit()
    assert(r.committed)
  }

  test("appendOnly is checked on the table as read, as delta-spark checks it") {
    // Turning appendOnly off and removing data in one commit; turning it on and removing.
    Seq("true" -> "false", "false" -> "true").foreach { case (was, becomes) =>
      val dirs = Seq("ours", "ref").map(n => tempDir(n).resolve("t"))
      dirs.foreach { d =>
        val log = DeltaLog.createTable(
          spark,
          d.toString,
          schema,
          Seq("part"),
          Map("delta.appendOnly" -> was)
        )
        log.startTransaction().addFiles(adds(spark, Seq("f1"))).commit()
      }
      val refOutcome = scala.util.Try {
        val t = org.apache.spark.sql.delta.DeltaLog
          .forTable(spark, dirs(1).toString)
          .startTransaction()
        t.updateMetadata(
          t.metadata.copy(configuration =
            t.metadata.configuration + ("delta.appendOnly" -> becomes)
          )
        )
        t.commit(
          t.filterFiles().map(_.remove),
          org.apache.spark.sql.delta.DeltaOperations.ManualUpdate
        )
      }
      val log = DeltaLog.forTable(spark, dirs(0).toString)
      val t = log.startTransaction()
      val md = t.readSnapshot.get.metadata
      val ours = scala.util.Try(
        t.updateMetadata(
          md.copy(configuration = md.configuration + ("delta.appendOnly" -> becomes))
        ).removeFiles(t.readFiles().select("path", "dataChange"))
          .commit()
      )
      assert(ours.isSuccess === refOutcome.isSuccess, s"$was -> $becomes: $ours vs $refOutcome")
      ours.failed.foreach {
        case e: TxlogException => assert(e.errorClass === "APPEND_ONLY_VIOLATION")
        case e                 => fail(e)
      }
    }
  }

  test("delta.feature.rowTracking = supported brings domainMetadata, as in delta-spark") {
    val dirs = Seq("ours", "ref").map(n => tempDir(n).resolve("t"))
    val props = Map("delta.feature.rowTracking" -> "supported")
    DeltaLog.createTable(spark, dirs(0).toString, schema, Seq("part"), props)
    spark.sql(
      s"CREATE TABLE delta.`${dirs(1)}` (id LONG, part STRING) USING delta PARTITIONED BY " +
        "(part) TBLPROPERTIES ('delta.feature.rowTracking' = 'supported')"
    )
    val Seq(ours, ref) = dirs.map(d => Oracle.reference(spark, d.toString, None))
    assert(ours.protocol === ref.protocol)
    assert(ours.protocol._4.contains("domainMetadata"))
  }

  test(
    "delta.feature.X = supported in a metadata change upgrades the protocol, as in delta-spark"
  ) {
    val dirs = Seq("ours", "ref").map(n => tempDir(n).resolve("t"))
    dirs.foreach(d => DeltaLog.createTable(spark, d.toString, schema, Seq("part"), Map.empty))
    spark.sql(
      s"ALTER TABLE delta.`${dirs(1)}` SET TBLPROPERTIES " +
        "('delta.feature.domainMetadata' = 'supported', 'k' = 'v')"
    )
    val log = DeltaLog.forTable(spark, dirs(0).toString)
    val md = log.snapshot().metadata
    log
      .startTransaction()
      .updateMetadata(
        md.copy(configuration =
          md.configuration ++ Map("delta.feature.domainMetadata" -> "supported", "k" -> "v")
        )
      )
      .commit("SET TBLPROPERTIES")
    val Seq(ours, ref) = dirs.map(d => Oracle.reference(spark, d.toString, None))
    assert(ours.protocol === ref.protocol)
    assert(ours.metadata._4 === ref.metadata._4)
    assert(ours.protocol._4.contains("domainMetadata"))
    // A feature txlog cannot honour is refused, as at creation.
    val t = log.startTransaction()
    val md2 = t.readSnapshot.get.metadata
    val e = intercept[TxlogException](
      t.updateMetadata(
        md2.copy(configuration = md2.configuration + ("delta.feature.clustering" -> "supported"))
      ).commit()
    )
    assert(e.errorClass === "UNSUPPORTED_WRITER_FEATURES")
  }

  test("actions that break the spec, unsupported features and downgrades leave the log unchanged") {
    val dir = tempDir().resolve("t")
    val log = DeltaLog.createTable(spark, dir.toString, schema, Seq("part"), Map.empty)
    log.startTransaction().addFiles(adds(spark, Seq("f1"))).commit()
    val before = snapshotDir(dir)
    def refused(stage: txlog.Transaction => Unit): String = {
      val t = log.startTransaction()
      stage(t)
      intercept[TxlogException](t.commit()).errorClass
    }
    // Spec: an add needs path and size; at most one remove per (path, dv) in a version.
    val noSize = adds(spark, Seq("f2")).drop("size")
    assert(refused(_.addFiles(noSize)) === "INVALID_COMMIT_ACTIONS")
    assert(
      refused(_.removeFiles(removes(spark, Seq("f1", "f1")))) === "INVALID_COMMIT_ACTIONS"
    )
    assert(
      refused(_.addFiles(adds(spark, Seq("g", "g")))) === "INVALID_COMMIT_ACTIONS"
    )
    // Spec, "Domain Metadata": only with the domainMetadata writer feature.
    assert(refused(_.setDomain("my.domain", "{}")) === "INVALID_COMMIT_ACTIONS")
    val noPath = adds(spark, Seq("f3")).drop("path")
    assert(refused(_.addFiles(noPath)) === "INVALID_COMMIT_ACTIONS")
    // Partition values keyed by other than the partition columns (delta-spark refuses them on
    // commit too: DELTA_INVALID_PARTITIONING_SCHEMA-like checks of the add's key set).
    val pv = Seq(Map("id" -> "1"), Map("part" -> "a", "id" -> "1"), Map.empty[String, String])
    pv.foreach { m =>
      val bad = adds(spark, Seq("f4")).withColumn("partitionValues", typedLit(m))
      assert(refused(_.addFiles(bad)) === "INVALID_COMMIT_ACTIONS", m)
    }
    // A writer feature txlog does not implement (the spec's icebergCompatV1), and a protocol
    // below the table's (1, 2) are refused too.
    val unknown = Protocol(1, 7, None, Some(Set("appendOnly", "invariants", "icebergCompatV1")))
    assert(refused(_.upgradeProtocol(unknown)) === "UNSUPPORTED_WRITER_FEATURES")
    assert(refused(_.upgradeProtocol(Protocol(1, 1, None, None))) === "PROTOCOL_DOWNGRADE")
    val md = log.snapshot().metadata
    assert(
      Set("INVALID_COMMIT_ACTIONS", "INVALID_METADATA")
        .contains(refused(_.updateMetadata(md.copy(schemaString = null))))
    )
    assert(snapshotDir(dir) === before)
  }

  test("system-controlled domains (delta.*) cannot be set or removed by users") {
    val dir = tempDir().resolve("t")
    val props = Map("delta.enableRowTracking" -> "true")
    val log = DeltaLog.createTable(spark, dir.toString, schema, Nil, props)
    val t = log.startTransaction()
    // Spec, "Domain Metadata": the delta. prefix is reserved for the system.
    assert(
      intercept[TxlogException](t.setDomain("delta.rowTracking", "{}")).errorClass ===
        "INVALID_ARGUMENT"
    )
    assert(
      intercept[TxlogException](t.removeDomain("delta.rowTracking")).errorClass ===
        "INVALID_ARGUMENT"
    )
    assert(t.setDomain("org.example", "{}").commit().committed)
  }
}
