package txlog.write

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.{broadcast, coalesce, col, count, lit, sum, when}
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import txlog.{DeleteResult, Snapshot, Transaction}
import txlog.deletionvectors.DvDescriptor
import txlog.errors.TxlogErrors
import txlog.protocol.ActionSchemas
import txlog.table.TableContext
import txlog.txn.DvUpdates
import txlog.util.{Jobs, JsonText}

/** The commit of a row-level DELETE whose tasks wrote deletion vectors (`txlog.sql.RowLevelDv`):
  * one `DELETE` in which each touched file is removed and added back with its new vector
  * ([[DvUpdates]]), or removed whole when its new vector deletes every row it has (its stats'
  * `numRecords`), as delta-spark's DELETE does. It reads the whole table for conflict checks: a
  * concurrent commit that changes files (other than a blind append, under WriteSerializable) fails
  * it with the conflict's typed error, and the touched files' removes name their current vectors,
  * so one that a concurrent commit changed conflicts too. Nothing is committed when no row matched.
  *
  * Driver memory: one entry per touched file (its path and new descriptor, about 200 bytes), as
  * Spark's file scan already holds one per file it reads.
  *
  * {{{
  * DvDelete.check(ctx, snapshot) // before any task writes
  * DvDelete.commit(ctx, snapshot, touched, Seq("id < 5"), started)
  * }}}
  */
private[txlog] object DvDelete {

  /** One file a DELETE touched: its path (as its add gives it), its new deletion vector (its old
    * one merged in) and how many rows its old one deleted (0 without one).
    */
  final case class Touched(path: String, dv: DvDescriptor, oldCardinality: Long)

  /** Refuses, typed and before anything is written, a table a DELETE (or, with `update`, an UPDATE)
    * by deletion vectors may not change: one whose protocol this writer does not support, that is
    * append-only, that does not enable deletion vectors (copy-on-write is not built yet), or that
    * records the change data feed (the changed rows would need `cdc` files). An UPDATE also writes
    * new rows: tables whose rows need checks (CHECK constraints, generated columns, CHAR / VARCHAR
    * limits), row tracking (the updated rows keep their ids), identity columns or an unsupported
    * column mapping mode are refused too.
    */
  def check(ctx: TableContext, snap: Snapshot, update: Boolean = false): Unit = {
    val what = if (update) "an UPDATE" else "a DELETE whose condition names data columns"
    txlog.txn.WriterRules
      .checkDataCommit(ctx.root, snap.version, snap.protocol, snap.metadata, "delete")
    val c = snap.config
    if (c.appendOnly) throw TxlogErrors.appendOnlyViolation(ctx.root)
    if (!c.deletionVectorsSupported || !c.deletionVectorsEnabled) {
      throw TxlogErrors.unsupportedWriteFeature(
        ctx.root,
        s"$what on a table without deletion vectors (txlog changes rows by deletion vectors " +
          "only; set delta.enableDeletionVectors to true" +
          (if (update) ")" else ", or delete whole partitions)")
      )
    }
    if (c.changeDataFeed) {
      throw TxlogErrors.unsupportedWriteFeature(
        ctx.root,
        s"the change data feed (delta.enableChangeDataFeed) with $what (its changed rows " +
          "would need change data files)"
      )
    }
    if (update) {
      if (c.rowTracking) {
        throw TxlogErrors.unsupportedWriteFeature(
          ctx.root,
          "row tracking with an UPDATE (the updated rows would need their old row ids)"
        )
      }
      val checks = RowChecks.of(ctx.root, snap.metadata)
      if (checks.nonEmpty) {
        throw TxlogErrors.unsupportedWriteFeature(
          ctx.root,
          s"an UPDATE of a table whose rows are checked (${checks.map(_.name).mkString(", ")})"
        )
      }
      DataFrameWrite.refuseUnimplemented(ctx.root, snap.protocol, snap.metadata)
    }
  }

  private val touchedSchema = new StructType()
    .add("path", StringType, nullable = false)
    .add(DvUpdates.NewDv, ActionSchemas.deletionVector)
    .add("oldCardinality", LongType, nullable = false)

  /** Commits `touched` on `snap` as one `DELETE` (None when empty: no row matched), with
    * delta-spark's metrics; `predicate` is what Spark pushed to the scan, `started` the statement's
    * start (System.nanoTime).
    */
  def commit(
      ctx: TableContext,
      snap: Snapshot,
      touched: Seq[Touched],
      predicate: Seq[String],
      started: Long
  ): Option[DeleteResult] =
    commitChanges(ctx, snap, "DELETE", touched, None, predicate, started).map { c =>
      DeleteResult(c.result.version, c.result.committed, c.removed, c.removedBytes, Some(c.rows))
    }

  /** What [[commitChanges]] committed: the files removed whole and their bytes, the rows deleted
    * (or updated), and the data files added.
    */
  final case class Committed(
      result: txlog.CommitResult,
      removed: Long,
      removedBytes: Long,
      rows: Long,
      added: Long
  )

  /** Commits `touched` (and, for an UPDATE, the files `written` with the rows' new values) on
    * `snap` as one `operation` (None when nothing was touched), with delta-spark's metrics.
    */
  def commitChanges(
      ctx: TableContext,
      snap: Snapshot,
      operation: String,
      touched: Seq[Touched],
      written: Option[WrittenFiles],
      predicate: Seq[String],
      started: Long
  ): Option[Committed] = if (touched.isEmpty) None
  else {
    val spark = ctx.spark
    val scanMs = (System.nanoTime() - started) / 1000000L
    val txn = Transaction.at(ctx, snap)
    val rows = touched.map(t => Row(t.path, t.dv.toRow, t.oldCardinality))
    val local = spark.createDataFrame(spark.sparkContext.parallelize(rows, 1), touchedSchema)
    val files = txn.readFiles().join(broadcast(local), Seq("path"))
    val records = col("stats_parsed.numRecords")
    val whole = coalesce(col(s"${DvUpdates.NewDv}.cardinality") === records, lit(false))
    val had = col("oldCardinality") > 0
    val m = Jobs.named(spark, s"count the files a $operation changes in ${ctx.root}") {
      files
        .agg(
          count(lit(1)),
          sum(when(whole, 1L).otherwise(0L)),
          sum(when(whole, col("size")).otherwise(0L)),
          sum(when(had, 1L).otherwise(0L)),
          sum(when(!whole && had, 1L).otherwise(0L)),
          sum(col(s"${DvUpdates.NewDv}.cardinality") - col("oldCardinality")),
          coalesce(sum(col("size")), lit(0L))
        )
        .collect()
        .head
    }
    if (m.getLong(0) != touched.length) {
      throw TxlogErrors.invalidCommitActions(
        ctx.root,
        s"${touched.length - m.getLong(0)} of the ${touched.length} files the $operation " +
          s"touched are not live in version ${snap.version}."
      )
    }
    val (removed, removedBytes, dvsRemoved, dvsUpdated, changed) =
      (m.getLong(1), m.getLong(2), m.getLong(3), m.getLong(4), m.getLong(5))
    txn.removeFiles(FilePlan.removes(files.where(whole), dataChange = true))
    txn.updateDeletionVectors(files.where(!whole))
    written.foreach(w => txn.addFiles(w.adds))
    val (added, addedBytes) = written.fold((0L, 0L))(w => (w.numFiles, w.bytes))
    val update = operation == "UPDATE"
    val rowsKey = if (update) "numUpdatedRows" else "numDeletedRows"
    // delta-spark's UPDATE counts every touched file as removed, its DELETE those removed whole
    val (removedFiles, removedFileBytes) =
      if (update) (touched.length.toLong, m.getLong(6)) else (removed, removedBytes)
    val metrics = Map(
      "numRemovedFiles" -> removedFiles.toString,
      "numRemovedBytes" -> removedFileBytes.toString,
      "numAddedFiles" -> added.toString,
      "numAddedBytes" -> addedBytes.toString,
      "numAddedChangeFiles" -> "0",
      "numCopiedRows" -> "0",
      rowsKey -> changed.toString,
      // delta-spark's: the adds with a vector, the removes with one, the files whose vector grew
      "numDeletionVectorsAdded" -> (touched.length - removed).toString,
      "numDeletionVectorsRemoved" -> dvsRemoved.toString,
      "numDeletionVectorsUpdated" -> dvsUpdated.toString,
      "scanTimeMs" -> scanMs.toString,
      "rewriteTimeMs" -> "0",
      "executionTimeMs" -> ((System.nanoTime() - started) / 1000000L).toString
    )
    val r = txn.commit(operation, Map("predicate" -> JsonText.array(predicate)), metrics)
    Some(Committed(r, removed, removedBytes, changed, added))
  }
}
