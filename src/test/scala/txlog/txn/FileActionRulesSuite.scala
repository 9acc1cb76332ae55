package txlog.txn

import java.nio.file.Path
import java.util.UUID

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.delta.{DeltaLog => RefLog, DeltaOperations}
import org.apache.spark.sql.delta.actions.{Action, AddFile, DeletionVectorDescriptor}
import org.apache.spark.sql.delta.sources.DeltaSQLConf

import txlog.{DeltaLog, SparkSuite, Transaction, TxlogException}

/** The spec's rules for the file actions of one commit, each staged through txlog's transaction and
  * committed by delta-spark's `OptimisticTransaction` on a copy of the same table: where
  * delta-spark refuses (with its duplicate-action check on), txlog refuses with
  * INVALID_COMMIT_ACTIONS before anything is written; where it commits, txlog commits the same.
  *   - at most one add and one remove per path, whatever their deletion vectors; an add and a
  *     remove of one path only with different deletion vectors ("Add File and Remove File");
  *   - an add with a deletion vector needs the deletionVectors feature, the table property
  *     `delta.enableDeletionVectors`, `numRecords` in its stats ("Writer Requirement for Deletion
  *     Vectors") and, as delta-spark requires, `tightBounds` false.
  */
class FileActionRulesSuite extends SparkSuite {
  private val file = "part=a/a0.parquet"
  private val stats =
    """{"numRecords":10,"minValues":{"id":1},"maxValues":{"id":10},"nullCount":{"id":0},""" +
      """"tightBounds":false}"""
  private val dv1 = DeletionVectorDescriptor.onDiskWithRelativePath(
    UUID.fromString("11111111-2222-3333-4444-555555555555"),
    sizeInBytes = 34,
    cardinality = 1L
  )
  private val dv2 = DeletionVectorDescriptor.onDiskWithRelativePath(
    UUID.fromString("66666666-7777-8888-9999-000000000000"),
    sizeInBytes = 34,
    cardinality = 2L
  )

  private def add(path: String, dv: DeletionVectorDescriptor = null, st: String = stats) =
    AddFile(path, Map("part" -> "a"), 10L, 1L, dataChange = true, stats = st, deletionVector = dv)

  /** A table (id LONG, part STRING) by delta-spark, with `props`, holding `file` (with `dv`). */
  private def table(props: String, dv: DeletionVectorDescriptor = null): Path = {
    val t = tempDir("file-rules").resolve("t")
    spark.sql(
      s"CREATE TABLE delta.`$t` (id LONG, part STRING) USING delta PARTITIONED BY (part)" +
        (if (props.isEmpty) "" else s" TBLPROPERTIES ($props)")
    )
    RefLog.clearCache()
    RefLog
      .forTable(spark, t.toString)
      .startTransaction()
      .commit(Seq(add(file, dv)), DeltaOperations.ManualUpdate)
    t
  }

  private lazy val plain = table("")
  private lazy val withDvs = table("'delta.enableDeletionVectors' = 'true'", dv1)
  private lazy val dvsOff = table(
    "'delta.feature.deletionVectors' = 'supported', 'delta.enableDeletionVectors' = 'false'"
  )

  private def copyOf(t: Path): Path = {
    val to = tempDir("file-rules").resolve("t")
    FileUtils.copyDirectory(t.toFile, to.toFile)
    to
  }

  /** delta-spark's outcome of committing `actions` on a copy of `t`: "none" or its error class.
    */
  private def reference(t: Path, actions: Seq[Action]): String = {
    val key = DeltaSQLConf.DELTA_DUPLICATE_ACTION_CHECK_ENABLED.key
    spark.conf.set(key, "true")
    try {
      RefLog.clearCache()
      RefLog
        .forTable(spark, copyOf(t).toString)
        .startTransaction()
        .commit(actions, DeltaOperations.ManualUpdate)
      "none"
    } catch {
      case e: Exception =>
        """\[([A-Z_]+)\]""".r
          .findFirstMatchIn(String.valueOf(e.getMessage))
          .fold(e.toString)(_.group(1))
    } finally spark.conf.unset(key)
  }

  /** Adds as the transaction API takes them: path, size, partitionValues, modificationTime,
    * dataChange, stats and (when given) a deletion vector.
    */
  private def adds(files: (String, Option[DeletionVectorDescriptor], String)*): DataFrame = {
    val session = spark
    import session.implicits._
    files
      .map { case (p, dv, st) =>
        (
          p,
          st,
          dv.map(_.storageType).orNull,
          dv.map(_.pathOrInlineDv).orNull,
          dv.map(_.cardinality)
        )
      }
      .toDF("path", "stats", "storageType", "pathOrInlineDv", "cardinality")
      .selectExpr(
        "path",
        "10L AS size",
        "map('part', 'a') AS partitionValues",
        "1L AS modificationTime",
        "true AS dataChange",
        "stats",
        "CASE WHEN storageType IS NULL THEN NULL ELSE named_struct('storageType', storageType, " +
          "'pathOrInlineDv', pathOrInlineDv, 'offset', CAST(NULL AS INT), 'sizeInBytes', 34, " +
          "'cardinality', cardinality) END AS deletionVector"
      )
  }

  /** txlog's outcome of staging `stage` on a copy of `t`: "none" or the error class; with the
    * version before and after, to show a refusal wrote nothing.
    */
  private def ours(t: Path)(stage: Transaction => Transaction): (String, Path) = {
    val copy = copyOf(t)
    val log = DeltaLog.forTable(spark, copy.toString)
    val before = log.snapshot().version
    val outcome =
      try { stage(log.startTransaction()).commit("MANUAL UPDATE"); "none" }
      catch { case e: TxlogException => e.errorClass }
    if (outcome != "none")
      assert(DeltaLog.forTable(spark, copy.toString).update().version === before)
    (outcome, copy)
  }

  private def refused(delta: String, expected: String, txlog: String): Unit = {
    assert(delta === expected, "delta-spark's outcome: the scenario is not what it claims")
    assert(txlog === "INVALID_COMMIT_ACTIONS")
  }

  test("two adds of one path, without and with a deletion vector") {
    val delta = reference(withDvs, Seq(add("part=a/b.parquet"), add("part=a/b.parquet", dv1)))
    val (txlog, _) = ours(withDvs)(
      _.addFiles(adds(("part=a/b.parquet", None, stats), ("part=a/b.parquet", Some(dv1), stats)))
    )
    refused(delta, "DELTA_DUPLICATE_ACTIONS_FOUND", txlog)
  }

  test("an add and a remove of the same file (path and deletion vector)") {
    val delta = reference(plain, Seq(add(file).remove, add(file)))
    val (txlog, _) = ours(plain) { txn =>
      txn.removeFiles(TxnTestKit.removes(spark, Seq(file))).addFiles(adds((file, None, stats)))
    }
    refused(delta, "DELTA_DUPLICATE_ACTIONS_FOUND", txlog)
  }

  test("a remove and an add of one path with another deletion vector: committed, as delta-spark") {
    val delta = reference(withDvs, Seq(add(file, dv1).remove, add(file, dv2)))
    val (txlog, copy) = ours(withDvs) { txn =>
      txn.removeFiles(TxnTestKit.removes(spark, Seq(file))).addFiles(adds((file, Some(dv2), stats)))
    }
    assert((delta, txlog) === ("none", "none"))
    RefLog.clearCache()
    val live = RefLog.forTable(spark, copy.toString).update().allFiles.collect().toSeq
    assert(live.map(f => (f.path, f.deletionVector.cardinality)) === Seq(file -> 2L))
  }

  test("a deletion vector on a table without the deletionVectors feature") {
    val delta = reference(plain, Seq(add("part=a/b.parquet", dv1)))
    val (txlog, _) = ours(plain)(_.addFiles(adds(("part=a/b.parquet", Some(dv1), stats))))
    refused(delta, "DELTA_ADDING_DELETION_VECTORS_DISALLOWED", txlog)
  }

  test("a deletion vector while delta.enableDeletionVectors is false") {
    val delta = reference(dvsOff, Seq(add("part=a/b.parquet", dv1)))
    val (txlog, _) = ours(dvsOff)(_.addFiles(adds(("part=a/b.parquet", Some(dv1), stats))))
    refused(delta, "DELTA_ADDING_DELETION_VECTORS_DISALLOWED", txlog)
  }

  test("a deletion vector without numRecords in the stats") {
    val noCount = """{"minValues":{"id":1},"maxValues":{"id":10},"tightBounds":false}"""
    val delta = reference(withDvs, Seq(add("part=a/b.parquet", dv1, noCount)))
    val (txlog, _) = ours(withDvs)(_.addFiles(adds(("part=a/b.parquet", Some(dv1), noCount))))
    refused(delta, "DELTA_DELETION_VECTOR_MISSING_NUM_RECORDS", txlog)
  }
}
