package txlog.txn

import org.apache.spark.sql.{Column, DataFrame, SparkSession}

import txlog.Metadata
import txlog.log.TablePath
import txlog.protocol.CommitFile
import txlog.table.TableContext

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
  * @param readMetadata
  *   the metadata of the read snapshot, to type `partitionValues_parsed` and `stats_parsed` of
  *   winning adds for `predicates` (None: loaded from the snapshot at `readVersion` when needed)
  */
private[txlog] final case class ReadSet(
    readVersion: Long,
    predicates: Seq[Column],
    wholeTable: Boolean,
    filesRead: Seq[DataFrame],
    appIds: Set[String],
    domains: Set[String],
    readMetadata: Option[Metadata] = None
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

/** Checks a transaction that lost the race for its version against the commits that won it, in the
  * order of delta-spark's conflict checker, each winner in turn (oldest first):
  *
  *   1. a winner changed the protocol: PROTOCOL_CHANGED;
  *   1. a winner changed the metadata: METADATA_CHANGED (not when it only raised identity high
  *      water marks and this transaction changes no metadata);
  *   1. both touch one domain (read or written; not `delta.rowTracking`, whose high water mark is
  *      re-assigned on rebase): CONCURRENT_TRANSACTION;
  *   1. a winner set a `txn` app id this transaction read or set: CONCURRENT_TRANSACTION;
  *   1. a winner added data (`dataChange`) matching what this transaction read: CONCURRENT_APPEND.
  *      Under WriteSerializable only winners that are not blind appends count, unless this
  *      transaction changes metadata; a blind append of its own skips the check;
  *   1. a winner removed data (`dataChange`) this transaction read (any, when it read the whole
  *      table): CONCURRENT_DELETE_READ;
  *   1. both removed one file, keyed by (path, deletion vector) as replay keys it:
  *      CONCURRENT_DELETE_DELETE.
  */
private[txlog] object ConflictChecker {

  /** Raises the typed conflict error of the first conflict between the transaction (`read`,
    * `staged`) and `winners` (the commits after its read version, oldest first); returns when it
    * may rebase onto them.
    */
  def check(
      ctx: TableContext,
      isolation: IsolationLevel,
      read: ReadSet,
      staged: StagedSummary,
      winners: Seq[CommitFile]
  ): Unit = {
    val spark = ctx.spark
    val table = ctx.table
    lazy val readMetadata =
      read.readMetadata.getOrElse(ctx.snapshots.at(read.readVersion).metadata)
    winners.sortBy(_.version).foreach { c =>
      val winner = WinningCommit.read(spark, table, c)
      new WinnerCheck(spark, table, isolation, read, staged, winner, () => readMetadata).run()
    }
  }
}
