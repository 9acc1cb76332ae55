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

/** The commit of a row-level DELETE whose tasks wrote deletion vectors
  * (`txlog.sql.RowLevelDelete`): one `DELETE` in which each touched file is removed and added back
  * with its new vector ([[DvUpdates]]), or removed whole when its new vector deletes every row it
  * has (its stats' `numRecords`), as delta-spark's DELETE does. It reads the whole table for
  * conflict checks: a concurrent commit that changes files (other than a blind append, under
  * WriteSerializable) fails it with the conflict's typed error, and the touched files' removes name
  * their current vectors, so one that a concurrent commit changed conflicts too. Nothing is
  * committed when no row matched.
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

  /** Refuses, typed and before anything is written, a table a DELETE by deletion vectors may not
    * change: one whose protocol this writer does not support, that is append-only, that does not
    * enable deletion vectors (copy-on-write is not built yet), or that records the change data feed
    * (the deleted rows would need `cdc` files).
    */
  def check(ctx: TableContext, snap: Snapshot): Unit = {
    txlog.txn.WriterRules
      .checkDataCommit(ctx.root, snap.version, snap.protocol, snap.metadata, "delete")
    val c = snap.config
    if (c.appendOnly) throw TxlogErrors.appendOnlyViolation(ctx.root)
    if (!c.deletionVectorsSupported || !c.deletionVectorsEnabled) {
      throw TxlogErrors.unsupportedWriteFeature(
        ctx.root,
        "a DELETE whose condition names data columns on a table without deletion vectors " +
          "(txlog deletes such rows by deletion vectors only; set delta.enableDeletionVectors " +
          "to true, or delete whole partitions)"
      )
    }
    if (c.changeDataFeed) {
      throw TxlogErrors.unsupportedWriteFeature(
        ctx.root,
        "the change data feed (delta.enableChangeDataFeed) with a DELETE whose condition names " +
          "data columns (its deleted rows would need change data files)"
      )
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
  ): Option[DeleteResult] = if (touched.isEmpty) None
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
    val m = Jobs.named(spark, s"count the files a DELETE changes in ${ctx.root}") {
      files
        .agg(
          count(lit(1)),
          sum(when(whole, 1L).otherwise(0L)),
          sum(when(whole, col("size")).otherwise(0L)),
          sum(when(had, 1L).otherwise(0L)),
          sum(when(!whole && had, 1L).otherwise(0L)),
          sum(col(s"${DvUpdates.NewDv}.cardinality") - col("oldCardinality"))
        )
        .collect()
        .head
    }
    if (m.getLong(0) != touched.length) {
      throw TxlogErrors.invalidCommitActions(
        ctx.root,
        s"${touched.length - m.getLong(0)} of the ${touched.length} files the DELETE touched " +
          s"are not live in version ${snap.version}."
      )
    }
    val (removed, removedBytes, dvsRemoved, dvsUpdated, deleted) =
      (m.getLong(1), m.getLong(2), m.getLong(3), m.getLong(4), m.getLong(5))
    val kept: DataFrame = files.where(!whole)
    txn.removeFiles(FilePlan.removes(files.where(whole), dataChange = true))
    txn.updateDeletionVectors(kept)
    val metrics = Map(
      "numRemovedFiles" -> removed.toString,
      "numRemovedBytes" -> removedBytes.toString,
      "numAddedFiles" -> "0",
      "numAddedBytes" -> "0",
      "numAddedChangeFiles" -> "0",
      "numCopiedRows" -> "0",
      "numDeletedRows" -> deleted.toString,
      // delta-spark's: the adds with a vector, the removes with one, the files whose vector grew
      "numDeletionVectorsAdded" -> (touched.length - removed).toString,
      "numDeletionVectorsRemoved" -> dvsRemoved.toString,
      "numDeletionVectorsUpdated" -> dvsUpdated.toString,
      "scanTimeMs" -> scanMs.toString,
      "rewriteTimeMs" -> "0",
      "executionTimeMs" -> ((System.nanoTime() - started) / 1000000L).toString
    )
    val r = txn.commit("DELETE", Map("predicate" -> JsonText.array(predicate)), metrics)
    Some(DeleteResult(r.version, r.committed, removed, removedBytes, Some(deleted)))
  }
}
