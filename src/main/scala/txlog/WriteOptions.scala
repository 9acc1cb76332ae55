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
