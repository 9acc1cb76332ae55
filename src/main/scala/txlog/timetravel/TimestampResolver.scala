package txlog.timetravel

import java.sql.Timestamp

import txlog.{Metadata, Protocol, TxlogErrors}
import txlog.log.{LogListing, TablePath}

/** Timestamp time travel: the latest version whose commit timestamp is at or before the asked
  * timestamp. A timestamp before the earliest reconstructable commit or after the latest commit is
  * an error. With in-commit timestamps the spec's rules choose the side of the enablement version
  * to search, and in-commit timestamps are read by binary search.
  */
private[txlog] object TimestampResolver {

  def resolve(
      listing: LogListing,
      latestProtocol: Protocol,
      latestMetadata: Metadata,
      ts: Long
  ): Long = {
    val table = listing.table
    val timeline = CommitTimeline(listing)
    require(listing.isComplete, "needs every commit: a complete listing")
    val earliest = listing.earliestListed
    val latest = listing.latestVersion
    val text = new Timestamp(ts).toString

    val useIct = InCommitTimestamps.enabled(latestProtocol, latestMetadata)
    val enablement = InCommitTimestamps.enablement(latestMetadata)
    val ictFrom = enablement.map(_._1).getOrElse(earliest).max(earliest)
    val found =
      if (useIct && enablement.forall(e => ts >= e._2)) searchIct(table, listing, ictFrom, ts)
      else if (useIct) timeline.latestAtOrBefore(ts, earliest, ictFrom)
      else timeline.latestAtOrBefore(ts, earliest, Long.MaxValue)

    val latestTs =
      if (useIct) listing.commit(latest).map(InCommitTimestamps.read(table, _))
      else timeline.timestampOf(latest)
    if (latestTs.exists(ts > _)) {
      throw TxlogErrors.timestampOutOfRange(
        table.root,
        text,
        s"It is after the latest commit (version $latest at ${new Timestamp(latestTs.get)})."
      )
    }
    found.getOrElse {
      val first = if (useIct && enablement.isEmpty) {
        listing.commit(earliest).map(InCommitTimestamps.read(table, _))
      } else timeline.timestampOf(earliest)
      throw TxlogErrors.timestampOutOfRange(
        table.root,
        text,
        s"It is before the earliest reconstructable commit (version $earliest" +
          first.map(t => s" at ${new Timestamp(t)}").getOrElse("") + ")."
      )
    }
  }

  /** Binary search over commits from `from` on, whose in-commit timestamps only increase. */
  private def searchIct(
      table: TablePath,
      listing: LogListing,
      from: Long,
      ts: Long
  ): Option[Long] = {
    val commits = listing.commits.filter(_.version >= from)
    var lo = 0
    var hi = commits.length - 1
    var found: Option[Long] = None
    while (lo <= hi) {
      val mid = (lo + hi) >>> 1
      if (InCommitTimestamps.read(table, commits(mid)) <= ts) {
        found = Some(commits(mid).version)
        lo = mid + 1
      } else hi = mid - 1
    }
    found
  }
}
