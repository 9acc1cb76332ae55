package txlog.timetravel

import java.sql.Timestamp

import txlog.{Metadata, Protocol}
import txlog.errors.TxlogErrors
import txlog.log.LogListing

/** Timestamp time travel: the latest version whose commit timestamp ([[CommitTimeline]]) is at or
  * before the asked timestamp. A timestamp before the earliest reconstructable commit or after the
  * latest commit is an error. With in-commit timestamps the spec's rules choose the side of the
  * enablement version to search: at or after the enablement timestamp, the commits from the
  * enablement version on (by binary search); before it, the commits before it (by file time).
  */
private[txlog] object TimestampResolver {

  def resolve(
      listing: LogListing,
      latestProtocol: Protocol,
      latestMetadata: Metadata,
      ts: Long
  ): Long = {
    val table = listing.table
    val timeline = CommitTimeline(listing, latestProtocol, latestMetadata)
    require(listing.isComplete, "needs every commit: a complete listing")
    val earliest = listing.earliestListed
    val latest = listing.latestVersion
    val text = new Timestamp(ts).toString

    val found = timeline.ictFrom match {
      case Some(from) if timeline.enablementTimestamp.forall(ts >= _) =>
        timeline.latestAtOrBefore(ts, from.max(earliest), Long.MaxValue)
      case Some(from) => timeline.latestAtOrBefore(ts, earliest, from)
      case None       => timeline.latestAtOrBefore(ts, earliest, Long.MaxValue)
    }

    val latestTs = listing.commit(latest).map(c => timeline.timestampOf(c.version))
    if (latestTs.exists(ts > _)) {
      throw TxlogErrors.timestampOutOfRange(
        table.root,
        text,
        s"It is after the latest commit (version $latest at ${new Timestamp(latestTs.get)})."
      )
    }
    found.getOrElse {
      val first = timeline.versions.headOption.map(timeline.timestampOf(_))
      throw TxlogErrors.timestampOutOfRange(
        table.root,
        text,
        s"It is before the earliest reconstructable commit (version $earliest" +
          first.map(t => s" at ${new Timestamp(t)}").getOrElse("") + ")."
      )
    }
  }
}
