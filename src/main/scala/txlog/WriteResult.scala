package txlog

import txlog.util.{SummaryField, SummaryShape}

/** What `DeltaLog.write` did.
  *
  * @param version
  *   the version committed; when nothing was committed (`ignore` on an existing table, or an
  *   application version already held), the table's latest version
  * @param numFiles
  *   data files written (and added)
  * @param numRemovedFiles
  *   files removed (overwrite)
  * @param commit
  *   the commit's result, when a commit was attempted
  *
  * {{{
  * val r = DeltaLog.write(df, "/data/events")
  * println(r.toJson) // {"mode":"append","version":3,"committed":true,"num_files":8,...}
  * }}}
  */
final case class WriteResult(
    mode: String,
    version: Long,
    committed: Boolean,
    numFiles: Long,
    numOutputRows: Long,
    numOutputBytes: Long,
    numRemovedFiles: Long,
    commit: Option[CommitResult]
) extends Summarized {

  /** mode, version, committed, num_files, num_output_rows, num_output_bytes, num_removed_files,
    * attempts. Example: `r.summaryFields.toMap("num_files")`.
    */
  def summaryFields: Seq[(String, Any)] = WriteResult.Summary.values(this)
}

/** The companion of [[WriteResult]]. */
object WriteResult {

  /** The summary's fields, defined once (Scala, the command line and Python read them). */
  private[txlog] val Summary: SummaryShape[WriteResult] = SummaryShape[WriteResult](
    "WriteResult",
    """|What :func:`txlog.write` did.
      |
      |``version`` is the version committed, or the table's latest version when nothing was
      |committed (``committed`` false: mode ``ignore`` on an existing table, or an application
      |version the table already holds). ``num_files`` data files were written holding
      |``num_output_rows`` rows in ``num_output_bytes`` bytes; ``num_removed_files`` files were
      |removed (overwrite); ``attempts`` counts the versions tried.""".stripMargin
  )(
    SummaryField.string[WriteResult]("mode")(_.mode),
    SummaryField.long[WriteResult]("version")(_.version),
    SummaryField.bool[WriteResult]("committed")(_.committed),
    SummaryField.long[WriteResult]("num_files")(_.numFiles),
    SummaryField.long[WriteResult]("num_output_rows")(_.numOutputRows),
    SummaryField.long[WriteResult]("num_output_bytes")(_.numOutputBytes),
    SummaryField.long[WriteResult]("num_removed_files")(_.numRemovedFiles),
    SummaryField.long[WriteResult]("attempts")(_.commit.map(_.attempts.toLong).getOrElse(0L))
  )
}
