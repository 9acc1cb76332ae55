package txlog

/** How `DeltaLog.write` writes a DataFrame.
  *
  * @param mode
  *   `append` (the default), `overwrite` (the table's files replaced by the new ones), `error`
  *   (TABLE_ALREADY_EXISTS when the table exists) or `ignore` (nothing written when it exists); a
  *   table that does not exist is created by every mode
  * @param partitionBy
  *   the partition columns of a new table; for an existing table, empty or its own
  * @param properties
  *   table properties of a new table (`delta.*` keys enable features); empty for an existing one
  * @param replaceWhere
  *   with mode `overwrite`: a predicate on partition columns; only the files it selects are
  *   removed, and every row written must satisfy it (CONSTRAINT_VIOLATION otherwise)
  * @param txnAppId
  *   with `txnVersion`: the write is application `txnAppId`'s transaction `txnVersion`, skipped
  *   when the table already holds that version or a later one (idempotent retries)
  * @param mergeSchema
  *   columns of the DataFrame the table lacks (nested struct fields too) are added to its schema,
  *   nullable, at the end, in the commit of the data (delta-spark's `mergeSchema`); a column whose
  *   type differs stays SCHEMA_MISMATCH (no type widening)
  * @param overwriteSchema
  *   with mode `overwrite` only (INVALID_ARGUMENT otherwise, and with `replaceWhere`): the table's
  *   schema becomes the DataFrame's (types may change, every file being removed) and its partition
  *   columns `partitionBy` (none when empty), as delta-spark's `overwriteSchema`
  *
  * {{{
  * DeltaLog.write(df, "/data/events", WriteOptions(mode = "overwrite", partitionBy = Seq("date")))
  * DeltaLog.write(df, "/data/events", WriteOptions(mergeSchema = true))
  * }}}
  */
final case class WriteOptions(
    mode: String = "append",
    partitionBy: Seq[String] = Nil,
    properties: Map[String, String] = Map.empty,
    replaceWhere: Option[String] = None,
    txnAppId: Option[String] = None,
    txnVersion: Option[Long] = None,
    mergeSchema: Boolean = false,
    overwriteSchema: Boolean = false
) {

  /** The options of the six-argument constructor of earlier releases (binary compatibility).
    * Example: `new WriteOptions("append", Nil, Map.empty, None, None, None)`.
    */
  def this(
      mode: String,
      partitionBy: Seq[String],
      properties: Map[String, String],
      replaceWhere: Option[String],
      txnAppId: Option[String],
      txnVersion: Option[Long]
  ) = this(mode, partitionBy, properties, replaceWhere, txnAppId, txnVersion, false, false)

  /** The six-argument `copy` of earlier releases (binary compatibility); the schema evolution
    * options are kept. Example: `opts.copy("overwrite", Nil, Map.empty, None, None, None)`.
    */
  def copy(
      mode: String,
      partitionBy: Seq[String],
      properties: Map[String, String],
      replaceWhere: Option[String],
      txnAppId: Option[String],
      txnVersion: Option[Long]
  ): WriteOptions = WriteOptions(
    mode,
    partitionBy,
    properties,
    replaceWhere,
    txnAppId,
    txnVersion,
    mergeSchema,
    overwriteSchema
  )
}

object WriteOptions {

  /** The six-argument `apply` of earlier releases (binary compatibility). Example:
    * `WriteOptions("append", Nil, Map.empty, None, None, None)`.
    */
  def apply(
      mode: String,
      partitionBy: Seq[String],
      properties: Map[String, String],
      replaceWhere: Option[String],
      txnAppId: Option[String],
      txnVersion: Option[Long]
  ): WriteOptions =
    new WriteOptions(mode, partitionBy, properties, replaceWhere, txnAppId, txnVersion)
}

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

/** What `DeltaLog.optimize` did (or, in a dry run, would do).
  *
  * @param version
  *   the version committed; the version read when nothing was committed
  * @param numBins
  *   groups of files each rewritten as one file
  * @param numFilesConsidered
  *   files small enough (or with enough rows deleted) to be compacted
  * @param numFilesRemaining
  *   of those, files left for a later run (one run compacts at most 100,000)
  * @param numConflictedBins
  *   bins left as they were because a concurrent commit removed one of their files (or changed its
  *   deletion vector) before OPTIMIZE committed; the other bins were committed
  *
  * {{{
  * val r = log.optimize(dryRun = true)
  * println(r.toJson) // {"version":7,"committed":false,"dry_run":true,"num_bins":3,...}
  * }}}
  */
final case class OptimizeResult(
    version: Long,
    committed: Boolean,
    dryRun: Boolean,
    numBins: Long,
    numRemovedFiles: Long,
    numRemovedBytes: Long,
    numAddedFiles: Long,
    numAddedBytes: Long,
    numFilesConsidered: Long,
    numFilesRemaining: Long,
    numConflictedBins: Long
) extends Summarized {

  /** version, committed, dry_run, num_bins, num_removed_files, num_removed_bytes, num_added_files,
    * num_added_bytes, num_files_considered, num_files_remaining, num_conflicted_bins. Example:
    * `r.summaryFields.toMap("num_bins")`.
    */
  def summaryFields: Seq[(String, Any)] = Seq(
    "version" -> version,
    "committed" -> committed,
    "dry_run" -> dryRun,
    "num_bins" -> numBins,
    "num_removed_files" -> numRemovedFiles,
    "num_removed_bytes" -> numRemovedBytes,
    "num_added_files" -> numAddedFiles,
    "num_added_bytes" -> numAddedBytes,
    "num_files_considered" -> numFilesConsidered,
    "num_files_remaining" -> numFilesRemaining,
    "num_conflicted_bins" -> numConflictedBins
  )
}
