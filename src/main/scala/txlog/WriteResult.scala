package txlog

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
  def summaryFields: Seq[(String, Any)] = Seq(
    "mode" -> mode,
    "version" -> version,
    "committed" -> committed,
    "num_files" -> numFiles,
    "num_output_rows" -> numOutputRows,
    "num_output_bytes" -> numOutputBytes,
    "num_removed_files" -> numRemovedFiles,
    "attempts" -> commit.map(_.attempts).getOrElse(0)
  )
}
