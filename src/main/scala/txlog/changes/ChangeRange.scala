package txlog.changes

import org.apache.spark.sql.catalyst.util.DateTimeUtils

import txlog.Snapshot
import txlog.errors.TxlogErrors
import txlog.log.LogListing
import txlog.timetravel.{CommitTimeline, TimestampResolver, TimestampText}

/** Where a change data feed read starts and ends: a version or a timestamp for each end, the end
  * optional (the latest version).
  *
  * {{{
  * val r = ChangeRange(Left(2L), Some(Right("2024-06-01 12:00:00")))
  * }}}
  */
private[txlog] final case class ChangeRange(
    start: Either[Long, String],
    end: Option[Either[Long, String]]
) {

  /** The versions `[start, end]` the range names in the log `listing` (complete) whose latest
    * snapshot is `latest`, as delta-spark resolves them:
    *   - a start timestamp is the first commit at or after it (TIMESTAMP_OUT_OF_RANGE when after
    *     the latest commit); an end timestamp the last commit at or before it, as time travel;
    *   - an end after the latest version is the latest version;
    *   - VERSION_NOT_FOUND when the start is after the latest version, INVALID_ARGUMENT when the
    *     end is before the start or a version is negative.
    */
  def resolve(listing: LogListing, latest: Snapshot): (Long, Long) = {
    val root = listing.table.root
    val last = latest.version
    lazy val timeline = CommitTimeline(listing, latest.protocol, latest.metadata)
    val zone = DateTimeUtils.getZoneId(latest.spark.sessionState.conf.sessionLocalTimeZone)
    val from = start match {
      case Left(v) =>
        if (v < 0) throw TxlogErrors.invalidArgument("startVersion", s"$v is negative.")
        v
      case Right(text) =>
        val ts = TimestampText.parse(text, zone).getTime
        timeline.versions.find(v => timeline.timestampOf(v) >= ts).getOrElse {
          throw TxlogErrors.timestampOutOfRange(
            root,
            text,
            s"It is after the latest commit (version $last at " +
              s"${new java.sql.Timestamp(timeline.timestampOf(last))}): no change starts there."
          )
        }
    }
    val to = end match {
      case None => last
      case Some(Left(v)) =>
        if (v < 0) throw TxlogErrors.invalidArgument("endVersion", s"$v is negative.")
        v.min(last)
      case Some(Right(text)) =>
        TimestampResolver.resolve(
          listing,
          latest.protocol,
          latest.metadata,
          TimestampText.parse(text, zone).getTime
        )
    }
    if (from > last) {
      throw TxlogErrors.versionNotFound(root, from, listing.earliestListed, last)
    }
    if (to < from) {
      throw TxlogErrors.invalidArgument(
        "endVersion",
        s"the range ends at version $to, before its start at version $from."
      )
    }
    (from, to)
  }
}
