package txlog

import txlog.util.{SummaryField, SummaryShape}

/** What `DeltaLog.delete` did.
  *
  * @param version
  *   the version committed; the latest version when no file matched (`committed` false)
  * @param numDeletedRows
  *   the rows of the removed files, when every one of them has a row count in its statistics
  *
  * {{{
  * val r = log.delete("date < '2024-01-01'")
  * println(r.toJson) // {"version":7,"committed":true,"num_removed_files":12,...}
  * }}}
  */
final case class DeleteResult(
    version: Long,
    committed: Boolean,
    numRemovedFiles: Long,
    numRemovedBytes: Long,
    numDeletedRows: Option[Long]
) extends Summarized {

  /** version, committed, num_removed_files, num_removed_bytes, num_deleted_rows (null when
    * unknown). Example: `r.summaryFields.toMap("num_removed_files")`.
    */
  def summaryFields: Seq[(String, Any)] = DeleteResult.Summary.values(this)
}

/** The companion of [[DeleteResult]]. */
object DeleteResult {

  /** The summary's fields, defined once (Scala, the command line and Python read them). */
  private[txlog] val Summary: SummaryShape[DeleteResult] = SummaryShape[DeleteResult](
    "DeleteResult",
    """|What :meth:`txlog.DeltaLog.delete` did: ``num_removed_files`` files of
      |``num_removed_bytes`` bytes removed in ``version`` (``committed`` false, and the latest
      |version, when no file matched); ``num_deleted_rows`` is None when a removed file has no row
      |count in its statistics.""".stripMargin
  )(
    SummaryField.long[DeleteResult]("version")(_.version),
    SummaryField.bool[DeleteResult]("committed")(_.committed),
    SummaryField.long[DeleteResult]("num_removed_files")(_.numRemovedFiles),
    SummaryField.long[DeleteResult]("num_removed_bytes")(_.numRemovedBytes),
    SummaryField.optLong[DeleteResult]("num_deleted_rows")(_.numDeletedRows)
  )
}
