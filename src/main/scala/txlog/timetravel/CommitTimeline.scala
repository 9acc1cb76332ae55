package txlog.timetravel

import txlog.protocol.TableConfiguration
import txlog.{Metadata, Protocol}
import txlog.errors.TxlogErrors
import txlog.log.LogListing

/** The commit timestamp of every version, by one rule used by snapshots, history and timestamp time
  * travel (the spec's "In-Commit Timestamps"):
  *
  *   - '''in-commit timestamps in force''' (versions from `ictFrom` on): the commit's
  *     `commitInfo.inCommitTimestamp`. A commit without one is MALFORMED_LOG_FILE naming it, and so
  *     is a version whose commit file was cleaned up (only a checkpoint is left): the checkpoint
  *     does not hold the commitInfo, and delta-spark refuses such a version too.
  *   - '''otherwise''': the commit file's modification time made monotonic as readers must: a
  *     commit whose file time is not after the previous listed commit's gets that one + 1 ms. A
  *     version whose commit file was cleaned up but has a checkpoint gets the checkpoint file's
  *     modification time: the checkpoint was written at or after the commit, and it is the only
  *     file of that version left. (delta-spark refuses to load such a version at all: "Could not
  *     find any delta files"; txlog can reconstruct it from the checkpoint.) Such a version is not
  *     in the history and time travel by timestamp never picks it (both list commits only, as
  *     delta-spark's do).
  *
  * `ictFrom` is the enablement version (`delta.inCommitTimestampEnablementVersion`) when in-commit
  * timestamps are enabled, or the earliest version when they were enabled at creation (no
  * enablement version set); None when they are not enabled.
  *
  * @param versions
  *   the listed commits from the earliest reconstructable version on, ascending
  * @param fileTimes
  *   their modification times, made monotonic
  */
private[txlog] final class CommitTimeline private (
    listing: LogListing,
    val versions: Array[Long],
    fileTimes: Array[Long],
    val ictFrom: Option[Long],
    val enablementTimestamp: Option[Long]
) {

  /** Whether `version`'s timestamp is its in-commit timestamp. */
  def usesIct(version: Long): Boolean = ictFrom.exists(version >= _)

  /** The adjusted file time of a listed commit. */
  def fileTimeOf(version: Long): Option[Long] = {
    val i = java.util.Arrays.binarySearch(versions, version)
    if (i >= 0) Some(fileTimes(i)) else None
  }

  /** The commit timestamp of `version` (see the class doc). `knownIct` is the commit's
    * inCommitTimestamp when the caller has already read its commitInfo (None: read if needed).
    */
  def timestampOf(version: Long, knownIct: Option[Long] = None): Long =
    if (usesIct(version)) knownIct.getOrElse(readIct(version))
    else
      fileTimeOf(version)
        .orElse(
          listing.checkpoints.find(_.version == version).map(_.files.head.file.modificationTime)
        )
        .getOrElse(
          throw TxlogErrors.versionNotFound(
            listing.table.root,
            version,
            listing.earliestListed,
            listing.latestVersion
          )
        )

  private def readIct(version: Long): Long = listing.commit(version) match {
    case Some(c) => txlog.log.InCommitTimestampReader.read(listing.table, c)
    case None =>
      throw TxlogErrors.malformedLogFile(
        listing.table.root + "/_delta_log/" + txlog.protocol.FileNames.commitName(version),
        version,
        "In-commit timestamps are enabled but the commit file is missing (cleaned up), so its " +
          "inCommitTimestamp cannot be read."
      )
  }

  /** The latest listed commit in `[from, until)` whose timestamp is at or before `ts`: a linear
    * scan over file times, a binary search over in-commit timestamps (which only increase).
    */
  def latestAtOrBefore(ts: Long, from: Long, until: Long): Option[Long] = {
    val lo0 = lowerIndex(from)
    val hi0 = lowerIndex(until) - 1
    if (lo0 > hi0) None
    else if (usesIct(versions(lo0))) {
      var lo = lo0
      var hi = hi0
      var found: Option[Long] = None
      while (lo <= hi) {
        val mid = (lo + hi) >>> 1
        if (timestampOf(versions(mid)) <= ts) { found = Some(versions(mid)); lo = mid + 1 }
        else hi = mid - 1
      }
      found
    } else (lo0 to hi0).reverseIterator.find(i => fileTimes(i) <= ts).map(versions(_))
  }

  private def lowerIndex(v: Long): Int = {
    val i = java.util.Arrays.binarySearch(versions, v)
    if (i >= 0) i else -i - 1
  }
}

private[txlog] object CommitTimeline {

  /** The timeline of `listing` under the in-commit timestamp settings of `protocol` and `metadata`
    * (those of the latest version, or of the version asked about).
    */
  def apply(listing: LogListing, protocol: Protocol, metadata: Metadata): CommitTimeline =
    build(listing, Some((protocol, metadata)))

  /** The timeline of file times alone, for what the spec bases on them (metadata cleanup). */
  def apply(listing: LogListing): CommitTimeline = build(listing, None)

  private def build(listing: LogListing, state: Option[(Protocol, Metadata)]): CommitTimeline = {
    val commits = listing.commits.filter(_.version >= listing.earliestListed)
    val ts = new Array[Long](commits.length)
    var i = 0
    while (i < commits.length) {
      val t = commits(i).file.modificationTime
      ts(i) = if (i > 0 && t <= ts(i - 1)) ts(i - 1) + 1 else t
      i += 1
    }
    val config = state.map { case (p, m) => TableConfiguration(p, m) }
    val enabled = config.exists(_.inCommitTimestamps)
    val enablement = config.flatMap(_.inCommitTimestampEnablement)
    val from =
      if (!enabled) None
      else Some(enablement.map(_._1).getOrElse(0L))
    new CommitTimeline(
      listing,
      commits.map(_.version).toArray,
      ts,
      from,
      if (enabled) enablement.map(_._2) else None
    )
  }
}
