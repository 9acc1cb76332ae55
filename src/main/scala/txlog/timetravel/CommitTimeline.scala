package txlog.timetravel

import txlog.log.LogListing

/** Commit timestamps from file modification times, made monotonic as readers must: a commit whose
  * file time is not after the previous commit's timestamp gets the previous one + 1 ms. Covers the
  * listed commits from the earliest reconstructable version on.
  */
private[txlog] final case class CommitTimeline(versions: Array[Long], timestamps: Array[Long]) {

  /** The adjusted timestamp of `version`, if its commit was listed. */
  def timestampOf(version: Long): Option[Long] = {
    val i = java.util.Arrays.binarySearch(versions, version)
    if (i >= 0) Some(timestamps(i)) else None
  }

  /** The latest listed version whose timestamp is at or before `ts`, among `candidates`. */
  def latestAtOrBefore(ts: Long, from: Long, until: Long): Option[Long] = {
    var found: Option[Long] = None
    var i = 0
    while (i < versions.length) {
      if (versions(i) >= from && versions(i) < until && timestamps(i) <= ts)
        found = Some(versions(i))
      i += 1
    }
    found
  }
}

private[txlog] object CommitTimeline {
  def apply(listing: LogListing): CommitTimeline = {
    val commits = listing.commits.filter(_.version >= listing.earliestListed)
    val ts = new Array[Long](commits.length)
    var i = 0
    while (i < commits.length) {
      val t = commits(i).file.modificationTime
      ts(i) = if (i > 0 && t <= ts(i - 1)) ts(i - 1) + 1 else t
      i += 1
    }
    CommitTimeline(commits.map(_.version).toArray, ts)
  }
}
