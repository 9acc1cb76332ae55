package txlog.txn

import org.apache.spark.sql.{Column, DataFrame, SparkSession}

import txlog.log.{CommitFile, TablePath}

/** What a transaction read, for conflict detection.
  *
  * @param readVersion
  *   the snapshot version it started on (-1: creating the table)
  * @param predicates
  *   the predicates of `readFiles` calls, over the columns of `Snapshot.allFiles` (path,
  *   partitionValues_parsed, stats_parsed, ...)
  * @param wholeTable
  *   whether it read every file (a `readFiles` without predicate, or `readWholeTable`)
  * @param filesRead
  *   the DataFrames `readFiles` returned (shape of `Snapshot.allFiles`)
  * @param appIds
  *   `txn` app ids it read or set
  * @param domains
  *   domains it read or set
  */
private[txlog] final case class ReadSet(
    readVersion: Long,
    predicates: Seq[Column],
    wholeTable: Boolean,
    filesRead: Seq[DataFrame],
    appIds: Set[String],
    domains: Set[String]
)

/** What a transaction commits, as conflict detection needs it.
  *
  * @param removes
  *   the staged removes (columns `path`, optionally `deletionVector`)
  * @param isBlindAppend
  *   only adds, and nothing read
  */
private[txlog] final case class StagedSummary(
    changesProtocol: Boolean,
    changesMetadata: Boolean,
    removes: Seq[DataFrame],
    appIds: Set[String],
    domains: Set[String],
    isBlindAppend: Boolean
)

/** The isolation levels of "Serializable writes": `delta.isolationLevel`. */
private[txlog] sealed abstract class IsolationLevel(val name: String)

private[txlog] object IsolationLevel {
  case object Serializable extends IsolationLevel("Serializable")
  case object WriteSerializable extends IsolationLevel("WriteSerializable")
}

/** Checks a transaction that lost the race for its version against the commits that won it. */
private[txlog] object ConflictChecker {

  /** Raises the typed conflict error of the first conflict between the transaction (`read`,
    * `staged`) and `winners` (the commits after its read version, oldest first); returns when it
    * may rebase onto them.
    */
  def check(
      spark: SparkSession,
      table: TablePath,
      isolation: IsolationLevel,
      read: ReadSet,
      staged: StagedSummary,
      winners: Seq[CommitFile]
  ): Unit = ()
}
