package txlog.errors

import txlog.{ErrorClasses, TxlogException}

/** The errors of transactions (conflicts, commits), part of [[TxlogErrors]]. */
private[txlog] trait TransactionErrors {

  // ---- Transactions: conflicts

  /** Data files a conflict names: at most this many. */
  val ConflictFilesShown = 5

  private def conflict(
      errorClass: String,
      table: String,
      winner: Long,
      isolation: String,
      what: String,
      files: Seq[String]
  ): TxlogException = {
    val shown = files.take(ConflictFilesShown)
    val listed =
      if (shown.isEmpty) ""
      else s" Conflicting files (first ${shown.size}): ${shown.mkString(", ")}."
    new TxlogException(
      errorClass,
      s"The transaction on $table conflicts with commit $winner, which another writer " +
        s"published after the transaction started (isolation level $isolation).",
      what + listed,
      "Start a new transaction on the latest snapshot and redo the operation; it may succeed " +
        "now that commit " + winner + " is visible.",
      null,
      shown.headOption,
      Some(winner)
    )
  }

  def protocolChanged(table: String, winner: Long, isolation: String): TxlogException =
    conflict(
      ErrorClasses.ProtocolChanged,
      table,
      winner,
      isolation,
      "The winning commit changed the table's protocol.",
      Nil
    )

  def metadataChanged(table: String, winner: Long, isolation: String): TxlogException =
    conflict(
      ErrorClasses.MetadataChanged,
      table,
      winner,
      isolation,
      "The winning commit changed the table's metadata (schema, partitioning or properties).",
      Nil
    )

  /** `kind` is "domain" or "application id"; `name` the one both transactions touched. */
  def concurrentTransaction(
      table: String,
      winner: Long,
      isolation: String,
      kind: String,
      name: String
  ): TxlogException = conflict(
    ErrorClasses.ConcurrentTransaction,
    table,
    winner,
    isolation,
    s"The winning commit also wrote the $kind '$name' that this transaction read or wrote.",
    Nil
  )

  def concurrentAppend(
      table: String,
      winner: Long,
      isolation: String,
      files: Seq[String]
  ): TxlogException = conflict(
    ErrorClasses.ConcurrentAppend,
    table,
    winner,
    isolation,
    "The winning commit added files that match what this transaction read.",
    files
  )

  def concurrentDeleteRead(
      table: String,
      winner: Long,
      isolation: String,
      files: Seq[String]
  ): TxlogException = conflict(
    ErrorClasses.ConcurrentDeleteRead,
    table,
    winner,
    isolation,
    "The winning commit removed files that this transaction read.",
    files
  )

  def concurrentDeleteDelete(
      table: String,
      winner: Long,
      isolation: String,
      files: Seq[String]
  ): TxlogException = conflict(
    ErrorClasses.ConcurrentDeleteDelete,
    table,
    winner,
    isolation,
    "The winning commit removed files that this transaction removes too.",
    files
  )

  // ---- Transactions: commit ----

  def tableAlreadyExists(table: String, detail: String): TxlogException = new TxlogException(
    ErrorClasses.TableAlreadyExists,
    s"Cannot create a table at $table: one exists there.",
    detail,
    "Open it with DeltaLog.forTable and commit to it, or create the table at another path."
  )

  def invalidCommitActions(table: String, detail: String): TxlogException = new TxlogException(
    ErrorClasses.InvalidCommitActions,
    s"The actions staged for a commit to $table break the Delta protocol; nothing was written.",
    detail,
    "Fix the staged actions (adds need path, size, partitionValues, modificationTime and " +
      "dataChange; removes need path and dataChange; partition values are keyed by the " +
      "partition columns, and stats name columns by physical name under column mapping; a " +
      "file is added or removed at most once per commit; metadata needs a schemaString) and " +
      "commit a new transaction."
  )

  def commitRetriesExhausted(table: String, attempts: Int, lastVersion: Long): TxlogException =
    new TxlogException(
      ErrorClasses.CommitRetriesExhausted,
      s"Gave up committing to $table after $attempts attempts (last tried version $lastVersion).",
      "Other writers kept winning the race for the next version.",
      "Retry later, or raise spark.txlog.commit.maxAttempts."
    )

  def transactionAlreadyCommitted(table: String): TxlogException = new TxlogException(
    ErrorClasses.InvalidArgument,
    s"This transaction on $table has already committed.",
    "A transaction commits once.",
    "Start a new transaction with DeltaLog.startTransaction()."
  )
}
