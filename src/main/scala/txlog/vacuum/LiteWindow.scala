package txlog.vacuum

import txlog.Snapshot
import txlog.errors.TxlogErrors
import txlog.log.LogListing
import txlog.timetravel.CommitTimeline

/** The commits whose remove and cdc actions a lite vacuum reads (delta-spark's LITE): from the one
  * after the last vacuum's record ([[LastVacuumInfo]]), or the earliest commit, to `end`, the
  * newest commit at or before the cutoff (by commit timestamp: in-commit timestamps where in force,
  * file times otherwise). `end` is None when every commit is newer than the cutoff.
  */
private[txlog] final case class LiteWindow(start: Long, end: Option[Long]) {

  /** Whether there are commits to read. */
  def nonEmpty: Boolean = end.exists(start <= _)
}

private[txlog] object LiteWindow {

  /** The newest commit at or before `deleteBefore`, if any. */
  def latestOutside(listing: LogListing, snapshot: Snapshot, deleteBefore: Long): Option[Long] = {
    val timeline = CommitTimeline(listing, snapshot.protocol, snapshot.metadata)
    val earliest = listing.earliestListed
    timeline.ictFrom match {
      case Some(from) if timeline.enablementTimestamp.forall(deleteBefore >= _) =>
        timeline.latestAtOrBefore(deleteBefore, from.max(earliest), Long.MaxValue)
      case Some(from) => timeline.latestAtOrBefore(deleteBefore, earliest, from)
      case None       => timeline.latestAtOrBefore(deleteBefore, earliest, Long.MaxValue)
    }
  }

  /** The window, or VACUUM_LITE_NOT_POSSIBLE when commits it would need were cleaned up and no
    * earlier vacuum covered them.
    */
  def of(
      listing: LogListing,
      snapshot: Snapshot,
      end: Option[Long],
      lastVacuumed: Option[Long]
  ): LiteWindow = end match {
    case None => LiteWindow(0L, None)
    case Some(e) =>
      val earliest = listing.commits.headOption.map(_.version).getOrElse(snapshot.version)
      if (earliest != 0 && lastVacuumed.forall(_ < earliest)) {
        throw TxlogErrors.vacuumLiteNotPossible(listing.table.root, earliest, lastVacuumed)
      }
      LiteWindow(math.min(snapshot.version, lastVacuumed.map(_ + 1).getOrElse(earliest)), Some(e))
  }
}
