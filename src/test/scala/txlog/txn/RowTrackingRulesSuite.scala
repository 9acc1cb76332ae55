package txlog.txn

import java.nio.file.Path

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.delta.{DeltaLog => RefLog, DeltaOperations}
import org.apache.spark.sql.delta.actions.{Metadata => RefMetadata}
import org.apache.spark.sql.types.StructType

import txlog.{DeltaLog, SparkSuite, TxlogException}

/** The spec's writer rules for row tracking ("Writer Requirements for Row Tracking") on commits
  * staged through txlog's transaction, each read back by delta-spark:
  *   - a remove carries the `baseRowId` and `defaultRowCommitVersion` of its live file;
  *   - a recommitted file (a live path added again, as a rewrite of its statistics or deletion
  *     vector stages it) keeps its row ids: delta-spark reads the same `_metadata.row_id` for every
  *     row, and the high water mark does not move;
  *   - the materialized column names are assigned when the protocol gains row tracking (as
  *     delta-spark's ALTER TABLE assigns them), and may not be a column's name (delta-spark:
  *     DELTA_ADDING_COLUMN_WITH_INTERNAL_NAME_FAILED);
  *   - `delta.enableRowTracking` is only set when every live file has row ids: refused while files
  *     have none, committed when the same commit adds them again (a backfill), after which
  *     delta-spark reads a distinct row id for every row.
  */
class RowTrackingRulesSuite extends SparkSuite {
  private val RowIdKey = "delta.rowTracking.materializedRowIdColumnName"
  private val VersionKey = "delta.rowTracking.materializedRowCommitVersionColumnName"

  /** A table (id LONG) by delta-spark with `props`, 4 rows in each of two files. */
  private def table(props: String): Path = {
    val t = tempDir("row-rules").resolve("t")
    spark.sql(
      s"CREATE TABLE delta.`$t` (id LONG) USING delta" +
        (if (props.isEmpty) "" else s" TBLPROPERTIES ($props)")
    )
    Seq(0, 4).foreach { from =>
      spark.range(from, from + 4).coalesce(1).write.format("delta").mode("append").save(t.toString)
    }
    t
  }

  private lazy val tracked = table("'delta.enableRowTracking' = 'true'")
  private lazy val untracked = table("")

  private def copyOf(t: Path): Path = {
    val to = tempDir("row-rules").resolve("t")
    FileUtils.copyDirectory(t.toFile, to.toFile)
    to
  }

  private def ref(t: Path) = { RefLog.clearCache(); RefLog.forTable(spark, t.toString) }

  /** delta-spark's (id, row id, row commit version) of every row, by id. */
  private def rowIds(t: Path): Seq[(Long, Long, Long)] = {
    RefLog.clearCache()
    spark.read
      .format("delta")
      .load(t.toString)
      .selectExpr("id", "_metadata.row_id", "_metadata.row_commit_version")
      .collect()
      .map(r => (r.getLong(0), r.getLong(1), r.getLong(2)))
      .toSeq
      .sortBy(_._1)
  }

  /** The live files as a user stages adds of them again: without their row ids. */
  private def readdedFiles(log: DeltaLog): DataFrame = log
    .startTransaction()
    .readFiles()
    .select("path", "size", "partitionValues", "modificationTime", "stats")
    .selectExpr("*", "false AS dataChange")

  test("a remove carries its live file's baseRowId and defaultRowCommitVersion") {
    val t = copyOf(tracked)
    val live = ref(t).update().allFiles.collect().toSeq
    val file = live.minBy(_.path)
    val log = DeltaLog.forTable(spark, t.toString)
    log.startTransaction().removeFiles(TxnTestKit.removes(spark, Seq(file.path))).commit("DELETE")
    val remove = TxnTestKit.commitLines(t, 3).flatMap(l => Option(l.get("remove"))).head
    assert(file.baseRowId.isDefined && file.defaultRowCommitVersion.isDefined)
    assert(remove.get("baseRowId").asLong === file.baseRowId.get)
    assert(remove.get("defaultRowCommitVersion").asLong === file.defaultRowCommitVersion.get)
  }

  test("a recommitted file keeps its row ids; the high water mark stays") {
    val t = copyOf(tracked)
    val before = rowIds(t)
    val mark = ref(t).update().domainMetadata.map(d => d.domain -> d.configuration).toMap
    val log = DeltaLog.forTable(spark, t.toString)
    log.startTransaction().addFiles(readdedFiles(log)).commit("COMPUTE STATS")
    assert(TxnTestKit.commitLines(t, 3).count(_.has("add")) === 2)
    assert(before.map(_._2).distinct.size === 8)
    assert(rowIds(t) === before)
    val after = ref(t).update().domainMetadata.map(d => d.domain -> d.configuration).toMap
    assert(after("delta.rowTracking") === mark("delta.rowTracking"))
  }

  test("the protocol gaining row tracking assigns the materialized column names") {
    val theirs = copyOf(untracked)
    spark.sql(
      s"ALTER TABLE delta.`$theirs` SET TBLPROPERTIES ('delta.feature.rowTracking' = 'supported')"
    )
    val refSnap = ref(theirs).update()
    assert(Seq(RowIdKey, VersionKey).forall(refSnap.metadata.configuration.contains))
    val refFeatures = refSnap.protocol.writerFeatureNames

    for (how <- Seq("property", "protocol")) {
      val t = copyOf(untracked)
      val log = DeltaLog.forTable(spark, t.toString)
      val snap = log.snapshot()
      val txn = log.startTransaction()
      if (how == "property") {
        val conf = snap.metadata.configuration + ("delta.feature.rowTracking" -> "supported")
        txn.updateMetadata(snap.metadata.copy(configuration = conf))
      } else {
        val p = snap.protocol
        // (1, 2) as table features: appendOnly and invariants stay, rowTracking joins them.
        val features = Set("appendOnly", "invariants", "rowTracking")
        txn.upgradeProtocol(p.copy(minWriterVersion = 7, writerFeatures = Some(features)))
      }
      txn.commit("SET TBLPROPERTIES")
      val after = log.update()
      val conf = after.metadata.configuration
      assert(Seq(RowIdKey, VersionKey).forall(conf.contains), how)
      assert(conf(RowIdKey) != conf(VersionKey))
      assert(!conf.contains("delta.feature.rowTracking"))
      val features = after.protocol.writerFeatures.getOrElse(Set.empty)
      assert(Set("rowTracking", "domainMetadata").subsetOf(features), how)
      assert(Set("rowTracking", "domainMetadata").subsetOf(refFeatures))
      // delta-spark reads the names txlog gave as its own.
      assert(ref(t).update().metadata.configuration(RowIdKey) === conf(RowIdKey), how)
    }
  }

  test("a materialized column name may not be a column's") {
    val theirs = copyOf(tracked)
    val refLog = ref(theirs)
    val refMd = refLog.update().metadata
    val clash = refMd.schema.add(refMd.configuration(RowIdKey), "long")
    val delta =
      try {
        val txn = refLog.startTransaction()
        txn.updateMetadata(
          RefMetadata(schemaString = clash.json)
            .copy(id = refMd.id, configuration = refMd.configuration)
        )
        txn.commit(Nil, DeltaOperations.ManualUpdate)
        "none"
      } catch {
        case e: Exception =>
          """\[([A-Z_]+)\]""".r.findFirstMatchIn(e.getMessage).fold(e.toString)(_.group(1))
      }
    assert(delta === "DELTA_ADDING_COLUMN_WITH_INTERNAL_NAME_FAILED")

    val t = copyOf(tracked)
    val log = DeltaLog.forTable(spark, t.toString)
    val md = log.snapshot().metadata
    val schema = StructType.fromDDL("id LONG").add(md.configuration(RowIdKey), "long")
    val e = intercept[TxlogException] {
      log.startTransaction().updateMetadata(md.copy(schemaString = schema.json)).commit("ALTER")
    }
    assert(e.errorClass === "INVALID_METADATA")
    assert(e.getMessage.contains(md.configuration(RowIdKey)))
    assert(log.update().version === 2)
  }

  test("delta.enableRowTracking: refused while live files have no row ids, set with a backfill") {
    val t = copyOf(untracked)
    val log = DeltaLog.forTable(spark, t.toString)
    val snap = log.snapshot()
    val conf = snap.metadata.configuration + ("delta.enableRowTracking" -> "true")
    val e = intercept[TxlogException] {
      log
        .startTransaction()
        .updateMetadata(snap.metadata.copy(configuration = conf))
        .commit("ALTER")
    }
    assert(e.errorClass === "INVALID_METADATA")
    assert(e.getMessage.contains("2 live file(s) of version 2"), e.getMessage)
    assert(log.update().version === 2)

    val txn = log.startTransaction()
    txn.addFiles(readdedFiles(log)).updateMetadata(snap.metadata.copy(configuration = conf))
    txn.commit("ALTER")
    val refSnap = ref(t).update()
    assert(refSnap.version === 3)
    assert(refSnap.metadata.configuration.get("delta.enableRowTracking").contains("true"))
    assert(refSnap.allFiles.collect().forall(f => f.baseRowId.isDefined))
    val ids = rowIds(t)
    assert(ids.map(_._1) === (0L until 8L))
    assert(ids.map(_._2).distinct.size === 8)
    assert(ids.forall(_._3 == 3L))
  }
}
