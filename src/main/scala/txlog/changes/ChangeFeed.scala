package txlog.changes

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.datasources.HadoopFsRelation

import txlog.DeltaLog
import txlog.scan.ScanTable
import txlog.timetravel.CommitTimeline

/** The change data feed of a table over a [[ChangeRange]]: the range resolved against a complete
  * listing of the log, the change files of its commits ([[ChangeFiles]]), read as a relation with
  * the end version's schema ([[ChangeScan]]).
  *
  * {{{
  * val df = ChangeFeed.dataFrame(log, ChangeRange(Left(2L), Some(Left(5L))))
  * }}}
  */
private[txlog] object ChangeFeed {

  def relation(log: DeltaLog, range: ChangeRange): HadoopFsRelation = {
    val listing = log.listing()
    val latest = log.relisting(log.latestOf(listing))
    val (start, end) = range.resolve(listing, latest)
    val snapshots = log.context.snapshots
    val endSnapshot = if (end == latest.version) latest else snapshots.at(listing, end)
    val startMetadata =
      if (start == end) endSnapshot.metadata else snapshots.at(listing, start).metadata
    val files = ChangeFiles.of(
      log.spark,
      listing,
      start,
      end,
      startMetadata,
      endSnapshot.metadata,
      CommitTimeline(listing, latest.protocol, latest.metadata)
    )
    ChangeScan.relation(log.spark, ScanTable(endSnapshot), files, s"versions $start to $end")
  }

  def dataFrame(log: DeltaLog, range: ChangeRange): DataFrame =
    log.spark.baseRelationToDataFrame(relation(log, range))
}
