package txlog.write

import scala.collection.mutable

import txlog.deletionvectors.{DeletionVectorWriter, DvDescriptor, RowIndexSet}
import txlog.write.DvDelete.Touched

/** One task's part of a DELETE by deletion vectors: the deleted rows of its files, one file after
  * another (its input clustered by file and sorted by row index), each file's new deletion vector
  * (its current one merged in) written into the task's DV file ([[DeletionVectorWriter.Target]]).
  * Memory: one file's row indexes at a time, and one entry per file touched.
  *
  * With `notes` (a MERGE on a table recording the change data feed) each file's changed rows are
  * also written apart, as two vectors no version names: the rows updated and the rows deleted
  * ([[DvDelete.Notes]]), so that the change data job can read the former as `update_preimage` and
  * the latter as `delete`; the commit deletes their files whatever its outcome.
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
private[txlog] final class DvDeletion(
    target: DeletionVectorWriter.Target,
    notes: Boolean = false
) {

  private val sink = target.sink[(String, Long)]()
  private val noteSink = if (notes) Some(target.sink[(String, Boolean)]()) else None
  private val noted = mutable.HashMap.empty[(String, Boolean), DvDescriptor]
  private val seen = mutable.HashSet.empty[String]
  private var file: String = null
  private var existing: Option[DvDescriptor] = None
  private var rows: RowIndexSet.Builder = null
  private var updatedRows: RowIndexSet.Builder = null
  private var deletedRows: RowIndexSet.Builder = null

  /** Deletes row `rowIndex` of data file `path` (as its add gives it), whose current deletion
    * vector is `dvJson` (its JSON descriptor; null for none); `updated` when the row is updated
    * (its new values written elsewhere) rather than deleted, which only `notes` tells apart.
    */
  def delete(path: String, dvJson: String, rowIndex: Long, updated: Boolean = false): Unit = {
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
      if (notes) {
        updatedRows = RowIndexSet.builder()
        deletedRows = RowIndexSet.builder()
      }
    }
    rows.add(rowIndex)
    if (notes) (if (updated) updatedRows else deletedRows).add(rowIndex)
  }

  private def flush(): Unit = if (file != null) {
    val merged = target.merged(file, existing, rows.result(), None)
    sink.add((file, existing.fold(0L)(_.cardinality)), merged)
    noteSink.foreach { s =>
      Seq(true -> updatedRows.result(), false -> deletedRows.result()).foreach { case (kind, set) =>
        if (!set.isEmpty) s.add((file, kind), set)
      }
    }
    file = null
  }

  /** The files touched with their new vectors (and notes), once their DV files are closed. */
  def finish(): Seq[Touched] = {
    flush()
    val vectors = sink.finish()
    noteSink.foreach(_.finish().foreach { case (key, dv) => noted(key) = dv })
    vectors.map { case ((path, old), dv) =>
      val n =
        if (notes) Some(DvDelete.Notes(noted.get((path, true)), noted.get((path, false))))
        else None
      Touched(path, dv, old, n)
    }
  }

  /** After a failure: deletes the DV files written (nothing refers to them). */
  def abort(cause: Throwable): Unit = {
    sink.abort(cause)
    noteSink.foreach(_.abort(cause))
  }
}
