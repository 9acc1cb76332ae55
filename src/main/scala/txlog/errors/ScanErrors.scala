package txlog.errors

import txlog.{ErrorClasses, TxlogException}

/** The errors of reading a table's rows (txlog.scan, txlog.deletionvectors, txlog.changes), part of
  * [[TxlogErrors]]. Each names the table version and the data file it is about.
  */
private[txlog] trait ScanErrors {

  def dataFileNotFound(
      table: String,
      version: Long,
      dataFile: String,
      e: Throwable
  ): TxlogException = new TxlogException(
    ErrorClasses.DataFileNotFound,
    s"Data file $dataFile of $table (version $version) does not exist.",
    "The log lists it as live, but it was deleted or never copied (a VACUUM with a short " +
      "retention, a manual delete, a partial copy of the table).",
    "Restore the file from a backup, or remove it from the table with repair (which drops the " +
      "rows it held).",
    e,
    Some(dataFile),
    Some(version)
  )

  def deletionVectorNotFound(
      table: String,
      version: Long,
      dataFile: String,
      dvFile: String,
      e: Throwable
  ): TxlogException = new TxlogException(
    ErrorClasses.DeletionVectorNotFound,
    s"The deletion vector of data file $dataFile of $table (version $version) cannot be " +
      s"found at $dvFile.",
    "Without it txlog cannot tell which rows of the file are deleted; reading the whole file " +
      "would show deleted rows.",
    "Restore the deletion vector file from a backup.",
    e,
    Some(dataFile),
    Some(version)
  )

  def deletionVectorCorrupt(
      table: String,
      version: Long,
      dataFile: String,
      where: String,
      detail: String
  ): TxlogException = new TxlogException(
    ErrorClasses.DeletionVectorCorrupt,
    s"The deletion vector of data file $dataFile of $table (version $version) in $where " +
      "cannot be read.",
    detail,
    "Restore the deletion vector file from a backup; the rows of this file cannot be read " +
      "without it.",
    null,
    Some(dataFile),
    Some(version)
  )

  def partitionValueInvalid(
      table: String,
      version: Long,
      dataFile: String,
      column: String,
      value: String,
      dataType: String
  ): TxlogException = new TxlogException(
    ErrorClasses.MalformedLogFile,
    s"The add action of data file $dataFile in $table (version $version) has partition value " +
      s"'$value' for column $column, which is not a $dataType.",
    "Partition values are serialized as the spec says per type; this one cannot be read, so the " +
      "rows of the file cannot be given their partition value.",
    "Rewrite the file's add action with a valid value (or remove the file with repair).",
    null,
    Some(dataFile),
    Some(version)
  )

  def changeDataNotRecorded(table: String, version: Long, detail: String): TxlogException =
    new TxlogException(
      ErrorClasses.ChangeDataNotRecorded,
      s"The change data feed of $table cannot be read at version $version.",
      detail,
      "Ask for versions at which delta.enableChangeDataFeed was true.",
      null,
      None,
      Some(version)
    )

  /** Row tracking is enabled but a live file lacks the `field` (`baseRowId` or
    * `defaultRowCommitVersion`) its rows' row ids or row commit versions are computed from.
    */
  def rowTrackingValueMissing(
      table: String,
      version: Long,
      dataFile: String,
      field: String
  ): TxlogException = new TxlogException(
    ErrorClasses.MalformedLogFile,
    s"Row tracking is enabled on $table (version $version), but the add action of data file " +
      s"$dataFile has no $field.",
    "Once delta.enableRowTracking is true every live file must carry baseRowId and " +
      "defaultRowCommitVersion (\"Row Tracking\"); without them the file's row ids and row " +
      "commit versions cannot be computed, and txlog does not guess them.",
    "Rewrite the file's add action with the field (as a row tracking backfill does), or read " +
      "the table without _metadata.row_id / row_commit_version / base_row_id / " +
      "default_row_commit_version.",
    null,
    Some(dataFile),
    Some(version)
  )

  /** Row tracking is enabled but the table's metadata does not name a materialized column. */
  def rowTrackingColumnNameMissing(table: String, version: Long, property: String): TxlogException =
    new TxlogException(
      ErrorClasses.MalformedLogFile,
      s"Row tracking is enabled on $table (version $version), but its metadata has no $property.",
      "The property names the column of data files holding materialized row ids or row commit " +
        "versions (\"Row Tracking\"); without it the values preserved by updates cannot be " +
        "found, and reading the default ones instead would be wrong for updated rows.",
      "Set the property to the column name the table's writer used, or read the table without " +
        "_metadata.row_id / row_commit_version.",
      null,
      None,
      Some(version)
    )

  /** The change data feed cannot read a range with one schema: `version` is the version whose
    * schema (or, for a column the feed adds, the read schema's version) is refused.
    */
  def changeDataSchemaIncompatible(
      table: String,
      version: Long,
      problem: String,
      cause: String,
      fix: String
  ): TxlogException = new TxlogException(
    ErrorClasses.ChangeDataSchemaIncompatible,
    problem,
    cause,
    fix,
    null,
    None,
    Some(version)
  )
}
