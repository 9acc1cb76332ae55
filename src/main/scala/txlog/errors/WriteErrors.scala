package txlog.errors

import txlog.{ErrorClasses, TxlogException}

/** The errors of writing data (`DeltaLog.write`), part of [[TxlogErrors]]. */
private[txlog] trait WriteErrors {

  def schemaMismatch(table: String, detail: String): TxlogException = new TxlogException(
    ErrorClasses.SchemaMismatch,
    s"The data written to $table does not match its schema; nothing was written.",
    detail,
    "Select and cast the columns to the table's schema, or write with mode \"overwrite\" and a " +
      "new table at another path."
  )

  def constraintViolation(table: String, constraint: String, row: String): TxlogException =
    new TxlogException(
      ErrorClasses.ConstraintViolation,
      s"A row written to $table breaks $constraint; no commit was made.",
      s"The condition is false or null for the row $row.",
      "Filter or fix the rows that break it before writing (or change the table's constraint)."
    )

  def newConstraintViolated(
      table: String,
      version: Long,
      constraint: String,
      rows: Long,
      example: String
  ): TxlogException = new TxlogException(
    ErrorClasses.ConstraintViolation,
    s"Cannot add $constraint to $table: $rows ${if (rows == 1) "row" else "rows"} of version " +
      s"$version break it; nothing was committed.",
    s"The condition is false or null for $rows ${if (rows == 1) "row" else "rows"}, e.g. $example.",
    "Delete or fix the rows that break it, then add the constraint again."
  )

  def uncheckableConstraint(table: String, detail: String): TxlogException = new TxlogException(
    ErrorClasses.InvalidMetadata,
    s"Cannot write to $table: a constraint of its metadata cannot be evaluated; nothing was " +
      "written.",
    detail,
    "Fix or drop the constraint (ALTER TABLE ... DROP CONSTRAINT) with a Delta writer."
  )

  def unsupportedWriteFeature(table: String, what: String): TxlogException = new TxlogException(
    ErrorClasses.UnsupportedWriterFeatures,
    s"Cannot write data to $table: it uses $what, which txlog's data writer does not " +
      "implement yet; nothing was written.",
    "A writer must honour every feature the table uses; writing without it would break the table " +
      "for other writers and readers.",
    "Write to this table with delta-spark."
  )

  def identityColumnViolation(table: String, cause: String, fix: String): TxlogException =
    new TxlogException(
      ErrorClasses.IdentityColumnViolation,
      s"Cannot write to $table: an identity column's values are generated; nothing was written.",
      cause,
      fix
    )
}
