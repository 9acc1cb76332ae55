package txlog.sql

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.{DeltaWriter, DeltaWriterFactory, WriterCommitMessage}

import txlog.deletionvectors.DeletionVectorWriter
import txlog.protocol.DvPaths
import txlog.write.DvDeletion
import txlog.write.DvDelete.Touched

/** Makes one [[DvDeleteWriter]] a task (serialized to the executors). */
private[txlog] final class DvDeleteWriterFactory(target: DeletionVectorWriter.Target)
    extends DeltaWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DeltaWriter[InternalRow] =
    new DvDeleteWriter(target)
}

/** A task's part of a DELETE ([[DvDeletion]]): Spark's deleted rows, their id the file's path and
  * the row's index, their metadata the file's deletion vector.
  */
private[txlog] final class DvDeleteWriter(target: DeletionVectorWriter.Target)
    extends DeltaWriter[InternalRow] {

  private val deletion = new DvDeletion(target)

  /** `id`: the file's path and the row's index; `metadata`: the file's deletion vector (JSON). */
  override def delete(metadata: InternalRow, id: InternalRow): Unit = deletion.delete(
    id.getUTF8String(0).toString,
    if (metadata.isNullAt(0)) null else metadata.getUTF8String(0).toString,
    id.getLong(1)
  )

  override def update(metadata: InternalRow, id: InternalRow, row: InternalRow): Unit =
    throw new UnsupportedOperationException("A txlog DELETE updates no row.")

  override def insert(row: InternalRow): Unit =
    throw new UnsupportedOperationException("A txlog DELETE inserts no row.")

  override def commit(): WriterCommitMessage = DvDeleteMessage(deletion.finish())

  override def abort(): Unit = deletion.abort(new RuntimeException("the task was aborted"))

  override def close(): Unit = ()
}

/** A task's new deletion vectors, one per file it touched. */
private[txlog] final case class DvDeleteMessage(files: Seq[Touched]) extends WriterCommitMessage

private[txlog] object DvDeleteMessage {

  /** Every file the tasks touched; a file touched by two tasks fails the commit (a bug, see
    * [[DvDeleteWriter]]). Null messages (tasks that failed) are skipped.
    */
  def touched(messages: Array[WriterCommitMessage]): Seq[Touched] = {
    val all = messages.toSeq.collect { case DvDeleteMessage(files) => files }.flatten
    val twice = all.groupBy(_.path).collect { case (p, fs) if fs.length > 1 => p }
    if (twice.nonEmpty) {
      throw new IllegalStateException(
        s"Two tasks of a txlog DELETE wrote deletion vectors of ${twice.toSeq.sorted.take(3)}; " +
          "nothing was committed."
      )
    }
    all
  }

  /** Deletes the DV files `messages` name (best effort: a file left behind is referenced by no
    * version, and VACUUM removes it).
    */
  def deleteFiles(
      target: DeletionVectorWriter.Target,
      messages: Array[WriterCommitMessage],
      conf: Configuration
  ): Unit = {
    val files = Option(messages).toSeq.flatten.collect { case DvDeleteMessage(fs) => fs }.flatten
    files.map(_.dv).filter(_.storageType == "u").map(_.pathOrInlineDv).distinct.foreach { text =>
      DvPaths.absolutePath(target.tableRoot, "u", text).foreach { p =>
        scala.util.Try(p.getFileSystem(conf).delete(p, false))
      }
    }
  }
}
