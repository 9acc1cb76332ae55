package txlog.compaction

import txlog.errors.TxlogErrors
import txlog.log.LogListing
import txlog.protocol.CommitFile

/** Checks the commit range a log compaction covers, and returns its commits in order. */
private[txlog] object CompactionRange {

  /** The commits `start` to `end`: INVALID_ARGUMENT (naming the versions) unless 0 <= start <= end
    * <= the latest version and every commit in between is listed.
    */
  def commits(listing: LogListing, start: Long, end: Long): IndexedSeq[CommitFile] = {
    if (start < 0) {
      throw TxlogErrors.invalidArgument("start", s"$start is negative")
    }
    if (start > end) {
      throw TxlogErrors.invalidArgument("end", s"end $end is before start $start")
    }
    val latest = listing.latestVersion
    if (end > latest) {
      throw TxlogErrors.invalidArgument(
        "end",
        s"end $end is after the latest version $latest of ${listing.table.root}"
      )
    }
    val inRange = listing.commits.filter(c => c.version >= start && c.version <= end)
    val missing = (start to end).iterator.filterNot(inRange.map(_.version).toSet).take(5).toSeq
    if (missing.nonEmpty) {
      throw TxlogErrors.invalidArgument(
        "start",
        s"commits ${missing.mkString(", ")}${if (missing.size == 5) ", ..." else ""} of the " +
          s"range $start to $end are not in the log of ${listing.table.root}; a compaction " +
          "needs every commit of its range"
      )
    }
    inRange
  }
}
