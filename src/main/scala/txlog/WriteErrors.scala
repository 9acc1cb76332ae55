package txlog

/** The errors of writing data (`DeltaLog.write`), part of [[TxlogErrors]]. */
private[txlog] trait WriteErrors {

  def schemaMismatch(table: String, detail: String): TxlogException = new TxlogException(
    ErrorClasses.SchemaMismatch,
    s"The data written to $table does not match its schema; nothing was written.",
    detail,
    "Select and cast the columns to the table's schema, or write with mode \"overwrite\" and a " +
      "new table at another path."
  )

  def notNullViolation(table: String, column: String): TxlogException = new TxlogException(
    ErrorClasses.ConstraintViolation,
    s"A row written to $table has a null in column $column, which is NOT NULL; no commit was " +
      "made.",
    s"The table's schema declares $column not nullable (a NOT NULL constraint).",
    s"Filter or fill the nulls of $column before writing."
  )

  def unsupportedWriteFeature(table: String, what: String): TxlogException = new TxlogException(
    ErrorClasses.UnsupportedWriterFeatures,
    s"Cannot write data to $table: it uses $what, which txlog's data writer does not " +
      "implement yet; nothing was written.",
    "A writer must honour every feature the table uses; writing without it would break the table " +
      "for other writers and readers.",
    "Write to this table with delta-spark."
  )
}
