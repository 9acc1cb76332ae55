package txlog

import txlog.util.{SummaryField, SummaryShape}

/** What `DeltaLog.update(condition, set)` did.
  *
  * @param version
  *   the version committed; the table's version the update read when no row matched (`committed`
  *   false)
  * @param numUpdatedRows
  *   the rows updated
  * @param numAddedFiles
  *   the data files written with the updated rows (and, copy-on-write, the rows copied with them)
  * @param numRemovedFiles
  *   the files touched: given a deletion vector, or removed whole (delta-spark's count)
  *
  * {{{
  * val r = log.update("id = 7", Map("status" -> "'closed'"))
  * println(r.toJson) // {"version":8,"committed":true,"num_updated_rows":1,...}
  * }}}
  */
final case class UpdateResult(
    version: Long,
    committed: Boolean,
    numUpdatedRows: Long,
    numAddedFiles: Long,
    numRemovedFiles: Long
) extends Summarized {

  /** version, committed, num_updated_rows, num_added_files, num_removed_files. Example:
    * `r.summaryFields.toMap("num_updated_rows")`.
    */
  def summaryFields: Seq[(String, Any)] = UpdateResult.Summary.values(this)
}

/** The companion of [[UpdateResult]]. */
object UpdateResult {

  /** The summary's fields, defined once (Scala, the command line and Python read them). */
  private[txlog] val Summary: SummaryShape[UpdateResult] = SummaryShape[UpdateResult](
    "UpdateResult",
    """|What :meth:`txlog.DeltaLog.update` did with a ``set``: ``num_updated_rows`` rows updated
      |in ``version`` (``committed`` false, and the version read, when no row matched), written
      |into ``num_added_files`` new files; ``num_removed_files`` files were touched (given a
      |deletion vector or removed).""".stripMargin
  )(
    SummaryField.long[UpdateResult]("version")(_.version),
    SummaryField.bool[UpdateResult]("committed")(_.committed),
    SummaryField.long[UpdateResult]("num_updated_rows")(_.numUpdatedRows),
    SummaryField.long[UpdateResult]("num_added_files")(_.numAddedFiles),
    SummaryField.long[UpdateResult]("num_removed_files")(_.numRemovedFiles)
  )
}
