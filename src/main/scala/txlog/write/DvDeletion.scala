package txlog.write

import scala.collection.mutable

import txlog.deletionvectors.{DeletionVectorWriter, DvDescriptor, RowIndexSet}
import txlog.write.DvDelete.Touched

/** One task's part of a DELETE by deletion vectors: the deleted rows of its files, one file after
  * another (its input clustered by file and sorted by row index), each file's new deletion vector
  * (its current one merged in) written into the task's DV file ([[DeletionVectorWriter.Target]]).
  * Memory: one file's row indexes at a time, and one entry per file touched.
  *
  * A file whose rows arrive in two runs would get two vectors: the task fails instead (the
  * clustering makes that a bug, not an input).
  *
  * {{{
  * val d = new DvDeletion(target)
  * try { rows.foreach(r => d.delete(r.path, r.dvJson, r.rowIndex)); d.finish() }
  * catch { case e: Throwable => d.abort(e); throw e }
  * }}}
  */
private[txlog] final class DvDeletion(target: DeletionVectorWriter.Target) {

  private val sink = target.sink[(String, Long)]()
  private val seen = mutable.HashSet.empty[String]
  private var file: String = null
  private var existing: Option[DvDescriptor] = None
  private var rows: RowIndexSet.Builder = null

  /** Deletes row `rowIndex` of data file `path` (as its add gives it), whose current deletion
    * vector is `dvJson` (its JSON descriptor; null for none).
    */
  def delete(path: String, dvJson: String, rowIndex: Long): Unit = {
    if (path != file) {
      flush()
      if (!seen.add(path)) {
        throw new IllegalStateException(
          s"The deleted rows of $path reached a task of a txlog DELETE in two runs; nothing " +
            "was committed."
        )
      }
      file = path
      existing = Option(dvJson).map(DvDescriptor.fromJson)
      rows = RowIndexSet.builder()
    }
    rows.add(rowIndex)
  }

  private def flush(): Unit = if (file != null) {
    val merged = target.merged(file, existing, rows.result(), None)
    sink.add((file, existing.fold(0L)(_.cardinality)), merged)
    file = null
  }

  /** The files touched with their new vectors, once their DV files are closed. */
  def finish(): Seq[Touched] = {
    flush()
    sink.finish().map { case ((path, old), dv) => Touched(path, dv, old) }
  }

  /** After a failure: deletes the DV files written (nothing refers to them). */
  def abort(cause: Throwable): Unit = sink.abort(cause)
}
