package txlog

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
  def summaryFields: Seq[(String, Any)] = Seq(
    "version" -> version,
    "committed" -> committed,
    "num_removed_files" -> numRemovedFiles,
    "num_removed_bytes" -> numRemovedBytes,
    "num_deleted_rows" -> Summarized.orNull(numDeletedRows)
  )
}
