package txlog.sql

import org.apache.hadoop.conf.Configuration
import org.apache.spark.TaskContext
import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Expression,
  GenericInternalRow,
  JoinedRow,
  UnsafeProjection
}
import org.apache.spark.sql.connector.write.{DeltaWriter, DeltaWriterFactory, WriterCommitMessage}
import org.apache.spark.unsafe.types.UTF8String

import txlog.deletionvectors.DeletionVectorWriter
import txlog.write.{CopyOnWrite, DataFiles, DmlChangeData, DvDeletion}
import txlog.write.DvDelete.Touched

/** How an UPDATE's or MERGE's new rows are written: `spec` writes rows of the table's columns
  * followed by one boolean column per check, whose values `checks` (bound to the table's columns,
  * `txlog.write.RowChecks.bound`) give; a false one fails the task with CONSTRAINT_VIOLATION before
  * anything is committed. On a table recording the change data feed, `changes` writes each new row
  * again, with its change type, as change data (`txlog.write.DmlChangeData`). `tracked`: the rows
  * have the materialized row id and row commit version columns after the table's
  * (`txlog.write.RowIdsKept`).
  */
private[txlog] final case class NewRows(
    spec: DataFiles.TaskSpec,
    checks: Seq[Expression],
    changes: Option[DataFiles.TaskSpec] = None,
    tracked: Boolean = false
)

/** Makes one [[DvRowWriter]] a task (serialized to the executors); `data` is how an UPDATE's or
  * MERGE's new rows are written (None for a DELETE); `notes`: whether the tasks note apart the rows
  * they update and those they delete (a MERGE recording the change data feed).
  */
private[txlog] final class DvRowWriterFactory(
    target: DeletionVectorWriter.Target,
    data: Option[NewRows],
    notes: Boolean
) extends DeltaWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DeltaWriter[InternalRow] =
    new DvRowWriter(
      target,
      data.map(_.spec.task(partitionId)),
      data.fold(Seq.empty[Expression])(_.checks),
      data.flatMap(_.changes).map(_.task(partitionId)),
      notes,
      data.exists(_.tracked)
    )
}

/** A task's part of a DELETE, UPDATE or MERGE: each deleted or updated row's id (the file's path
  * and the row's index, with the file's deletion vector as metadata) marked in its file's new
  * deletion vector ([[DvDeletion]]); an updated row's new values, and a MERGE's inserted rows,
  * written into the task's new data files (`data`, with statistics, NOT NULL checks and the table's
  * `checks`, evaluated on each new row); with `changes` each new row written again as change data,
  * `update_postimage` or `insert`; with `notes` the rows updated and deleted noted apart; with
  * `tracked` each new row written with its materialized row id (an updated row's old one, read from
  * `metadata`; null for an inserted row, which gets a fresh one) and a null row commit version (the
  * commit's).
  */
private[txlog] final class DvRowWriter(
    target: DeletionVectorWriter.Target,
    data: Option[DataFiles.TaskWrite],
    checks: Seq[Expression],
    changes: Option[DataFiles.TaskWrite] = None,
    notes: Boolean = false,
    tracked: Boolean = false
) extends DeltaWriter[InternalRow] {

  private val deletion = new DvDeletion(target, notes)
  private var updated = 0L
  private val checked = if (checks.isEmpty) None else Some(UnsafeProjection.create(checks))

  /** `id`: the file's path and the row's index; `metadata`: the file's deletion vector (JSON). */
  override def delete(metadata: InternalRow, id: InternalRow): Unit = mark(metadata, id, false)

  private def mark(metadata: InternalRow, id: InternalRow, update: Boolean): Unit =
    deletion.delete(
      id.getUTF8String(0).toString,
      if (metadata.isNullAt(0)) null else metadata.getUTF8String(0).toString,
      id.getLong(1),
      update
    )

  override def update(metadata: InternalRow, id: InternalRow, row: InternalRow): Unit = {
    mark(metadata, id, true)
    val ids = if (tracked) new GenericInternalRow(Array[Any](metadata.getLong(1), null)) else null
    newRow(row, DvRowWriter.Postimage, ids)
    updated += 1
  }

  override def insert(row: InternalRow): Unit =
    newRow(row, DvRowWriter.Inserted, if (tracked) DvRowWriter.FreshIds else null)

  /** Writes `row` (the table's columns) followed by `ids` (the materialized row tracking columns,
    * when `tracked`) and the checks' columns; with `changes`, `row` again with `change`.
    */
  private def newRow(row: InternalRow, change: InternalRow, ids: InternalRow): Unit = data match {
    case Some(w) =>
      val full = if (ids == null) row else new JoinedRow(row, ids)
      w.add(checked.fold(full)(c => new JoinedRow(full, c(row))))
      changes.foreach(_.add(new JoinedRow(row, change)))
    case None => throw new UnsupportedOperationException("A txlog DELETE inserts no row.")
  }

  override def commit(): WriterCommitMessage = {
    val written = data.fold(Seq.empty[Row])(_.finish())
    val changed = changes.fold(Seq.empty[Row])(_.finish())
    DvRowMessage(deletion.finish(), written, updated, changed)
  }

  override def abort(): Unit = {
    data.foreach(_.abort())
    changes.foreach(_.abort())
    val attempt = Option(TaskContext.get()).fold("")(t => s" (task attempt ${t.taskAttemptId()})")
    deletion.abort(new RuntimeException(s"the task was aborted$attempt"))
  }

  override def close(): Unit = ()
}

/** The change type of a new row's change data: an updated row's new values, or an inserted row. */
private[txlog] object DvRowWriter {
  val Postimage: InternalRow = InternalRow(UTF8String.fromString("update_postimage"))
  val Inserted: InternalRow = InternalRow(UTF8String.fromString("insert"))

  /** An inserted row's materialized row id and row commit version: none (the file's). */
  val FreshIds: InternalRow = new GenericInternalRow(Array[Any](null, null))
}

/** A task's new deletion vectors, one per file it touched, the data files it wrote (rows of
  * `DataFiles.TaskSpec.outSchema`), how many of their rows are updates (the rest: a MERGE's
  * inserts), and the change data files it wrote (as the data files).
  */
private[txlog] final case class DvRowMessage(
    files: Seq[Touched],
    written: Seq[Row],
    updated: Long,
    changes: Seq[Row]
) extends WriterCommitMessage

private[txlog] object DvRowMessage {

  /** Every file the tasks touched; a file touched by two tasks fails the commit (a bug: the write
    * asks Spark to cluster rows by file). Null messages (tasks that failed) are skipped.
    */
  def touched(messages: Array[WriterCommitMessage]): Seq[Touched] = {
    val all = messages.toSeq.collect { case DvRowMessage(files, _, _, _) => files }.flatten
    val twice = all.groupBy(_.path).collect { case (p, fs) if fs.length > 1 => p }
    if (twice.nonEmpty) {
      throw new IllegalStateException(
        s"Two tasks of a txlog row-level operation wrote deletion vectors of " +
          s"${twice.toSeq.sorted.take(3)}; nothing was committed."
      )
    }
    all
  }

  /** The data files the tasks wrote. */
  def written(messages: Array[WriterCommitMessage]): Seq[Row] =
    messages.toSeq.collect { case DvRowMessage(_, rows, _, _) => rows }.flatten

  /** The change data files the tasks wrote. */
  def changes(messages: Array[WriterCommitMessage]): Seq[Row] =
    messages.toSeq.collect { case DvRowMessage(_, _, _, rows) => rows }.flatten

  /** How many of the rows the tasks wrote are updates. */
  def updated(messages: Array[WriterCommitMessage]): Long =
    messages.toSeq.collect { case m: DvRowMessage => m.updated }.sum

  /** Deletes the DV files `messages` name (best effort: a file left behind is referenced by no
    * version, and VACUUM removes it).
    */
  def deleteFiles(
      target: DeletionVectorWriter.Target,
      messages: Array[WriterCommitMessage],
      conf: Configuration
  ): Unit = {
    val files =
      Option(messages).toSeq.flatten.collect { case DvRowMessage(fs, _, _, _) => fs }.flatten
    CopyOnWrite.dropVectors(target.tableRoot, files.map(_.dv) ++ DmlChangeData.notes(files), conf)
  }
}
