package txlog.errors

import txlog.{ErrorClasses, TxlogException}

/** The errors of streams of a table (`txlog.streaming`), part of [[TxlogErrors]]. */
private[txlog] trait StreamErrors {

  def offsetInvalid(table: String, offset: String, why: String): TxlogException =
    new TxlogException(
      ErrorClasses.StreamingOffsetInvalid,
      s"The stream of $table cannot resume from the offset $offset in its checkpoint.",
      why.capitalize,
      "Start the query with a new checkpoint location (and startingVersion to skip what was read)."
    )

  /** A commit removing files and adding none, met by a stream without ignoreDeletes. */
  def sourceDelete(table: String, version: Long, removed: String): TxlogException =
    new TxlogException(
      ErrorClasses.StreamingSourceDelete,
      s"The stream of $table met deleted data at version $version (for example $removed).",
      "A stream reads the rows tables add; a commit removing rows cannot be streamed.",
      "Set the option ignoreDeletes (whole files deleted) or skipChangeCommits to true, or " +
        "restart the query with a new checkpoint location.",
      null,
      None,
      Some(version)
    )

  /** A commit removing files and adding others (an UPDATE, a MERGE, a DELETE by deletion vectors, a
    * rewrite), met by a stream without ignoreChanges or skipChangeCommits.
    */
  def sourceUpdate(table: String, version: Long, change: String): TxlogException =
    new TxlogException(
      ErrorClasses.StreamingSourceUpdate,
      s"The stream of $table met a data update at version $version ($change).",
      "A stream reads the rows tables add; a commit rewriting rows cannot be streamed as it is.",
      "Set the option skipChangeCommits to true to skip such commits (or ignoreChanges to read " +
        "their files again, rows already read included), or restart the query with a new " +
        "checkpoint location.",
      null,
      None,
      Some(version)
    )

  def sourceSchemaChanged(
      table: String,
      version: Long,
      read: String,
      found: String,
      starting: Boolean
  ): TxlogException = new TxlogException(
    ErrorClasses.StreamingSourceSchemaChanged,
    s"The schema of $table changed at version $version, which the stream reads with another.",
    s"The stream reads with $read; version $version has $found.",
    if (starting) {
      "Restart the query: it then reads with the new schema (or change startingVersion or " +
        s"startingTimestamp to start after version $version)."
    } else "Restart the query: it then reads with the table's new schema.",
    null,
    None,
    Some(version)
  )

  /** A commit enabling a reader feature the stream reads files without (deletion vectors). */
  def sourceFeatureEnabled(table: String, version: Long, feature: String): TxlogException =
    new TxlogException(
      ErrorClasses.StreamingSourceSchemaChanged,
      s"$table enabled $feature at version $version, after the stream of it started.",
      s"The stream reads the table's files as it was when it started, without $feature.",
      "Restart the query: it then reads the files with the table's new features.",
      null,
      None,
      Some(version)
    )

  /** A commit the stream has yet to read is no longer in the log (metadata cleanup). */
  def streamVersionMissing(table: String, version: Long, earliest: Long): TxlogException =
    new TxlogException(
      ErrorClasses.MissingLogFiles,
      s"The stream of $table cannot read version $version: the log starts at version $earliest.",
      "The commits the stream had yet to read were removed (log retention, metadata cleanup).",
      "Restart the query with a new checkpoint location and a startingVersion the log holds, " +
        "and keep the log longer than the stream may lag (delta.logRetentionDuration).",
      null,
      None,
      Some(version)
    )
}
