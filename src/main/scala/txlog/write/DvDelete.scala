package txlog.write

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.{broadcast, coalesce, col, lit}
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import txlog.{DeleteResult, Metadata, Snapshot, Transaction}
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
  * On a table without deletion vectors the vectors only say which rows to drop: the touched files
  * are rewritten without them and removed whole ([[CopyOnWrite]]).
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
  final case class Touched(
      path: String,
      dv: DvDescriptor,
      oldCardinality: Long,
      notes: Option[Notes] = None
  )

  /** A MERGE's note of a touched file's changed rows for the change data feed: those it updated and
    * those it deleted, as vectors no version names (none when the set is empty).
    */
  final case class Notes(updated: Option[DvDescriptor], deleted: Option[DvDescriptor])

  /** Refuses, typed and before anything is written, a table a DELETE, UPDATE or MERGE (`operation`)
    * may not change: one whose protocol this writer does not support or that is append-only. A
    * table recording the change data feed gets change data files ([[DmlChangeData]]). A table
    * without deletion vectors is changed copy-on-write ([[CopyOnWrite]]; with row tracking the
    * copied rows keep their ids and commit versions). An UPDATE or MERGE also writes new rows,
    * checked in the tasks against the table's CHECK constraints, invariants and CHAR / VARCHAR
    * limits and generated columns, and on tables with row tracking with the updated rows' ids
    * ([[RowIdsKept]]); identity columns are generated for a MERGE's inserts and never updated
    * ([[txlog.sql.IdentityAssignments]]). Tables with an unsupported column mapping mode are
    * refused.
    */
  def check(ctx: TableContext, snap: Snapshot, operation: String = "DELETE"): Unit = {
    val writesRows = operation != "DELETE"
    txlog.txn.WriterRules
      .checkDataCommit(ctx.root, snap.version, snap.protocol, snap.metadata, "delete")
    val c = snap.config
    if (c.appendOnly) throw TxlogErrors.appendOnlyViolation(ctx.root)
    if (writesRows) {
      // CHECK constraints, invariants, generated columns and CHAR / VARCHAR limits are checked
      // on the new rows (RowChecks.bound); generated columns the statement leaves unset are
      // set by the statement as parsed (txlog.sql.GeneratedAssignments)
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
    * (or updated), the data files added, and the commit's `operationMetrics`.
    */
  final case class Committed(
      result: txlog.CommitResult,
      removed: Long,
      removedBytes: Long,
      rows: Long,
      added: Long,
      metrics: Map[String, String]
  )

  /** Commits `touched` (and, for an UPDATE or MERGE, the files `written` with the rows' new values,
    * `updatedRows` of whose rows are updates of rows the vectors delete) on `snap` as one
    * `operation` (None when nothing was touched or written), with delta-spark's metrics. On a table
    * without deletion vectors the touched files are rewritten first, then removed whole, and the
    * vectors' files deleted whatever the outcome ([[CopyOnWrite]]). On a table recording the change
    * data feed, `changes` are the change data files the tasks wrote (the new rows), and the rows
    * the touched files lose are written as more ([[DmlChangeData]]); the notes' files are deleted
    * whatever the outcome. `evolved`: the metadata a MERGE's schema evolution commits with it.
    */
  def commitChanges(
      ctx: TableContext,
      snap: Snapshot,
      operation: String,
      touched: Seq[Touched],
      written: Option[WrittenFiles],
      predicate: Seq[String],
      started: Long,
      updatedRows: Long = 0L,
      changes: Option[WrittenFiles] = None,
      evolved: Option[Metadata] = None
  ): Option[Committed] = if (touched.isEmpty && written.forall(_.numFiles == 0)) None
  else
    try {
      val spark = ctx.spark
      val scanMs = (System.nanoTime() - started) / 1000000L
      val txn = Transaction.at(ctx, snap)
      // a MERGE's schema evolution: the columns its rows were written with, in the same commit
      evolved.foreach(txn.updateMetadata)
      val rows = touched.map(t => Row(t.path, t.dv.toRow, t.oldCardinality))
      // within the driver bound a local relation, which the broadcast takes without a job
      val local =
        if (rows.length <= txlog.txn.CommitBody.DriverActions) {
          spark.createDataFrame(java.util.Arrays.asList(rows: _*), touchedSchema)
        } else spark.createDataFrame(spark.sparkContext.parallelize(rows, 1), touchedSchema)
      val joined = txn.readFiles().join(broadcast(local), Seq("path"))
      // the touched files' entries read once, onto the driver when the commit itself would hold
      // them there (CommitBody.DriverActions): the counts, removes and adds below run no job then
      val files =
        if (touched.isEmpty || touched.length > txlog.txn.CommitBody.DriverActions) joined
        else {
          val got = Jobs.named(spark, s"read the files a $operation changes in ${ctx.root}") {
            joined.collect()
          }
          spark.createDataFrame(java.util.Arrays.asList(got: _*), joined.schema)
        }
      val newDv = col(s"${DvUpdates.NewDv}.cardinality")
      val whole = coalesce(newDv === col("stats_parsed.numRecords"), lit(false))
      // per touched file (one small row each, as `touched` itself): removed whole, its size,
      // whether it had a vector, the rows its new vector adds
      val per =
        if (touched.isEmpty) Array.empty[Row]
        else {
          Jobs.named(spark, s"count the files a $operation changes in ${ctx.root}") {
            files
              .select(whole, col("size"), col("oldCardinality") > 0, newDv - col("oldCardinality"))
              .collect()
          }
        }
      def total(rows: Iterable[Row], f: Row => Long) = rows.iterator.map(f).sum
      val removedWhole = per.filter(_.getBoolean(0))
      val m = Row(
        per.length.toLong,
        removedWhole.length.toLong,
        total(removedWhole, _.getLong(1)),
        per.count(_.getBoolean(2)).toLong,
        per.count(r => !r.getBoolean(0) && r.getBoolean(2)).toLong,
        total(per, r => if (r.isNullAt(3)) 0L else r.getLong(3)),
        total(per, _.getLong(1))
      )
      if (m.getLong(0) != touched.length) {
        throw TxlogErrors.invalidCommitActions(
          ctx.root,
          s"${touched.length - m.getLong(0)} of the ${touched.length} files the $operation " +
            s"touched are not live in version ${snap.version}."
        )
      }
      val cow = CopyOnWrite.applies(snap)
      val rewriteStart = System.nanoTime()
      val copied =
        if (cow && touched.nonEmpty) Some(CopyOnWrite.rewrite(ctx, snap, files, touched)) else None
      val rewriteMs = copied.fold(0L)(_ => (System.nanoTime() - rewriteStart) / 1000000L)
      if (cow && touched.nonEmpty) txn.removeFiles(DvUpdates.removes(files))
      else if (touched.nonEmpty) {
        txn.removeFiles(FilePlan.removes(files.where(whole), dataChange = true))
        txn.updateDeletionVectors(files.where(!whole))
      }
      written.foreach(w => txn.addFiles(w.adds))
      copied.foreach(w => txn.addFiles(w.adds))
      val lost =
        if (touched.nonEmpty && DmlChangeData.written(snap, operation)) {
          Some(DmlChangeData.lostRows(ctx, snap, operation, files, touched))
        } else None
      val cdc = (changes.toSeq ++ lost.toSeq).filter(_.numFiles > 0)
      cdc.foreach(w => txn.addCdcFiles(DmlChangeData.actions(w)))
      val adds = written.toSeq ++ copied.toSeq
      val counts = DmlMetrics.Counts(
        touched = touched.length.toLong,
        touchedBytes = m.getLong(6),
        removedWhole = if (cow) touched.length.toLong else m.getLong(1),
        removedWholeBytes = if (cow) m.getLong(6) else m.getLong(2),
        dvsRemoved = m.getLong(3),
        dvsUpdated = if (cow) 0L else m.getLong(4),
        marked = m.getLong(5),
        added = adds.map(_.numFiles).sum,
        addedBytes = adds.map(_.bytes).sum,
        addedRows = written.fold(0L)(_.rows),
        updatedRows = if (operation == "UPDATE") m.getLong(5) else updatedRows,
        copied = copied.fold(0L)(_.rows),
        rewriteMs = rewriteMs,
        changeFiles = cdc.map(_.numFiles).sum,
        changeBytes = cdc.map(_.bytes).sum
      )
      val metrics = DmlMetrics.of(operation, counts, scanMs, started)
      if (operation == "MERGE" && written.exists(_.rows > updatedRows)) {
        // the values the MERGE's inserts generated raise their identity columns' high water
        // marks: its generators are live (its plan runs still); others of the table live in this
        // JVM can only raise a mark further than needed, never leave a value given below it
        IdentityWrites
          .raised(ctx.root, evolved.getOrElse(snap.metadata), IdentityValues.liveFor(ctx.root))
          .foreach(txn.raiseIdentityHighWaterMarks)
      }
      val r = txn.commit(operation, Map("predicate" -> JsonText.array(predicate)), metrics)
      val changed = if (operation == "MERGE") counts.marked + counts.addedRows else counts.marked
      Some(
        Committed(r, counts.removedWhole, counts.removedWholeBytes, changed, counts.added, metrics)
      )
    } finally {
      // a copy-on-write change's vectors are notes no version names, whatever the outcome
      val notes = DmlChangeData.notes(touched)
      val dropped = if (CopyOnWrite.applies(snap)) touched.map(_.dv) ++ notes else notes
      if (dropped.nonEmpty) CopyOnWrite.dropVectors(ctx.root, dropped, ctx.table.hadoopConf)
    }
}
