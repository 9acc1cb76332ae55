package txlog

import txlog.util.{SummaryField, SummaryShape}

/** What `DeltaLog.merge(...).execute()` did, under the names of delta-spark's MERGE result.
  *
  * @param version
  *   the version committed; the table's version the merge read when nothing changed (`committed`
  *   false)
  * @param numAffectedRows
  *   the rows updated, deleted and inserted
  * @param numAddedFiles
  *   the data files written (updated and inserted rows)
  * @param numRemovedFiles
  *   the files removed whole (delta-spark's `numTargetFilesRemoved`); files that keep rows are
  *   given a deletion vector instead
  *
  * {{{
  * val r = log.merge(updates, "target.id = s.id").whenMatched().updateAll()
  *   .whenNotMatched().insertAll().execute()
  * println(r.toJson) // {"version":9,"committed":true,"num_affected_rows":100,...}
  * }}}
  */
final case class MergeResult(
    version: Long,
    committed: Boolean,
    numUpdatedRows: Long,
    numDeletedRows: Long,
    numInsertedRows: Long,
    numAddedFiles: Long,
    numRemovedFiles: Long
) extends Summarized {

  /** The rows updated, deleted and inserted. Example: `r.numAffectedRows`. */
  def numAffectedRows: Long = numUpdatedRows + numDeletedRows + numInsertedRows

  /** version, committed, num_affected_rows, num_updated_rows, num_deleted_rows, num_inserted_rows,
    * num_added_files, num_removed_files. Example: `r.summaryFields.toMap("num_inserted_rows")`.
    */
  def summaryFields: Seq[(String, Any)] = MergeResult.Summary.values(this)
}

/** The companion of [[MergeResult]]. */
object MergeResult {

  /** The summary's fields, defined once (Scala, the command line and Python read them). */
  private[txlog] val Summary: SummaryShape[MergeResult] = SummaryShape[MergeResult](
    "MergeResult",
    """|What :meth:`txlog.MergeBuilder.execute` did: ``num_affected_rows`` rows changed in
      |``version`` (``committed`` false, and the version read, when nothing changed), of them
      |``num_updated_rows`` updated, ``num_deleted_rows`` deleted and ``num_inserted_rows``
      |inserted; ``num_added_files`` files written, ``num_removed_files`` removed
      |whole.""".stripMargin
  )(
    SummaryField.long[MergeResult]("version")(_.version),
    SummaryField.bool[MergeResult]("committed")(_.committed),
    SummaryField.long[MergeResult]("num_affected_rows")(_.numAffectedRows),
    SummaryField.long[MergeResult]("num_updated_rows")(_.numUpdatedRows),
    SummaryField.long[MergeResult]("num_deleted_rows")(_.numDeletedRows),
    SummaryField.long[MergeResult]("num_inserted_rows")(_.numInsertedRows),
    SummaryField.long[MergeResult]("num_added_files")(_.numAddedFiles),
    SummaryField.long[MergeResult]("num_removed_files")(_.numRemovedFiles)
  )
}
