package txlog.table

import java.sql.Timestamp

import org.apache.spark.sql.SparkSession

import txlog.{Snapshot, TxlogException}
import txlog.log.{LogListing, LogSegment, TablePath}
import txlog.replay.{ReadErrors, SnapshotLoader}
import txlog.timetravel.{TimestampResolver, TimestampText}

/** The snapshots of one table: replayed from storage, at a version or a timestamp, and the latest
  * one remembered (with the listing it came from) so that [[update]] reads only what was committed
  * since. The public `DeltaLog` and every internal that reads the table ([[TableContext]]) go
  * through one manager per table handle, so a commit's conflict check and post-commit work build on
  * the snapshot its transaction read rather than replaying the table again.
  *
  * Holds one snapshot and one listing on the driver (a listing is bounded by the log's files past
  * the checkpoint it starts from; a snapshot's files stay in Spark).
  */
private[txlog] final class SnapshotManager(spark: SparkSession, table: TablePath) {

  /** The snapshot [[update]] builds on, with the listing it came from. */
  @volatile private var current: Option[(Snapshot, LogListing)] = None

  /** The listing the remembered snapshot was built from. */
  def currentListing: Option[LogListing] = current.map(_._2)

  /** Every file of the log: for history, time travel by timestamp and log hygiene. */
  def listing(): LogListing = LogListing.list(table)

  /** The latest snapshot, replayed now from the checkpoint `_last_checkpoint` names, and
    * remembered. Example: `ctx.snapshots.fresh().version`.
    */
  def fresh(): Snapshot = relisting(load(LogListing.fromHint(table)))

  private def load(l: LogListing): Snapshot = loadKeepingRows(l)._1

  /** The latest snapshot of `l`, remembered, and the rows of its non-file state if a job collected
    * them ([[SnapshotLoader.loadKeepingRows]]).
    */
  private def loadKeepingRows(
      l: LogListing,
      keepFiles: Boolean = false
  ): (Snapshot, Option[SnapshotLoader.StateRows]) = {
    val (listed, segment) = LogSegment.resolve(l, None)
    val (s, rows) = SnapshotLoader.loadKeepingRows(spark, listed, segment, keepFiles)
    current = Some(s -> listed)
    (s, rows)
  }

  /** The snapshot at `version`; VERSION_NOT_FOUND when the log cannot reconstruct it. */
  def at(version: Long): Snapshot = relisting(at(LogListing.fromHint(table, version), version))

  /** The snapshot at `version` from `l`, or from a complete listing when `l` cannot build it; its
    * non-file state reconciled from `rows` (a later snapshot's, see [[SnapshotLoader.loadBefore]])
    * when given, by a job over its log otherwise.
    */
  def at(l: LogListing, version: Long, rows: Option[SnapshotLoader.StateRows] = None): Snapshot = {
    val (listed, segment) = LogSegment.resolve(l, Some(version))
    rows.fold(SnapshotLoader.load(spark, listed, segment)) { r =>
      SnapshotLoader.loadBefore(spark, listed, segment, r)
    }
  }

  /** Runs `load` (which lists the log) once more when a checkpoint part or sidecar it read vanished
    * after it was listed: a concurrent metadata cleanup replaced it, and a new listing finds the
    * log as it now is.
    */
  def relisting[T](load: => T): T =
    try load
    catch { case e: TxlogException if ReadErrors.vanishedCheckpoint(e) => load }

  /** The latest version committed at or before `timestamp`; TIMESTAMP_OUT_OF_RANGE outside the
    * table's commits.
    */
  def asOf(timestamp: Timestamp): Snapshot = relisting {
    val l = listing()
    // The latest snapshot's rows serve the earlier one's state: no second job over its commits.
    val (latest, rows) = latestKeepingRows(l)
    val v = TimestampResolver.resolve(l, latest.protocol, latest.metadata, timestamp.getTime)
    if (v == latest.version) latest else at(l, v, rows)
  }

  /** [[asOf]] a timestamp given as text, read in the session time zone as Spark reads it. */
  def asOf(timestamp: String): Snapshot = asOf(TimestampText.parse(timestamp, sessionZone))

  private def sessionZone: java.time.ZoneId =
    org.apache.spark.sql.catalyst.util.DateTimeUtils
      .getZoneId(spark.sessionState.conf.sessionLocalTimeZone)

  /** The latest snapshot, listing only what changed since the remembered one (see `DeltaLog.update`
    * for the cache rules).
    */
  def update(): Snapshot = current match {
    case None => fresh()
    case Some((prev, prevListing)) =>
      relisting {
        val l = LogListing.after(prevListing, prev.version)
        if (l.latestVersion == prev.version) prev
        else {
          val (listed, segment) = LogSegment.resolve(l, None)
          val next = SnapshotLoader.update(spark, listed, segment, prev)
          // A cached update replaces the cache it was built on; an update that shares it does not.
          // Only a cache txlog made is released: one the user asked for stays until they unpersist.
          if (next.isCached) prev.cachedRoot.filter(_ ne next).foreach(_.releaseOwnCache())
          current = Some(next -> listed)
          next
        }
      }
  }

  /** The snapshot at `version` (the latest when None), the remembered one when it is that. */
  def latestOr(version: Option[Long]): Snapshot = relisting {
    val l = LogListing.fromHint(table, version.getOrElse(Long.MaxValue))
    version match {
      case Some(v) if v != l.latestVersion => at(l, v)
      case _                               => latestOf(l)
    }
  }

  /** The latest snapshot of a listing: the remembered one when it is still the latest. With
    * `keepFiles`, a snapshot loaded now keeps its checkpoint's file actions for one pass (a
    * vacuum's, see [[SnapshotLoader.loadKeepingRows]]). Example: `snapshots.latestOf(l).version`.
    */
  def latestOf(l: LogListing, keepFiles: Boolean = false): Snapshot =
    latestKeepingRows(l, keepFiles)._1

  /** [[latestOf]], with the rows of its non-file state when this call's job collected them (none
    * for the remembered snapshot, which keeps no rows).
    */
  private def latestKeepingRows(
      l: LogListing,
      keepFiles: Boolean = false
  ): (Snapshot, Option[SnapshotLoader.StateRows]) =
    current
      .map(_._1)
      .filter(_.version == l.latestVersion)
      .map(_ -> Option.empty[SnapshotLoader.StateRows])
      .getOrElse(loadKeepingRows(l, keepFiles))

  /** The latest snapshot, listing from the hint (the remembered one when nothing changed). */
  def latest(): Snapshot = relisting(latestOf(LogListing.fromHint(table)))
}
