package txlog.changes

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.datasources.HadoopFsRelation

import txlog.scan.ReadSpec
import txlog.table.TableContext
import txlog.timetravel.CommitTimeline

/** The change data feed of a table over a [[ChangeRange]]: the range resolved against a complete
  * listing of the log, the change files of its commits ([[ChangeFiles]]), read as a relation with
  * the end version's schema ([[ChangeScan]]).
  *
  * {{{
  * val df = ChangeFeed.dataFrame(ctx, ChangeRange(Left(2L), Some(Left(5L))))
  * }}}
  */
private[txlog] object ChangeFeed {

  def relation(ctx: TableContext, range: ChangeRange): HadoopFsRelation = {
    val snapshots = ctx.snapshots
    val listing = snapshots.listing()
    val latest = snapshots.relisting(snapshots.latestOf(listing))
    val (start, end) = range.resolve(listing, latest)
    val endSnapshot = if (end == latest.version) latest else snapshots.at(listing, end)
    val startMetadata =
      if (start == end) endSnapshot.metadata else snapshots.at(listing, start).metadata
    val files = ChangeFiles.of(
      ctx.spark,
      listing,
      start,
      end,
      startMetadata,
      endSnapshot.metadata,
      CommitTimeline(listing, latest.protocol, latest.metadata)
    )
    ChangeScan.relation(ctx.spark, ReadSpec(endSnapshot), files, s"versions $start to $end")
  }

  def dataFrame(ctx: TableContext, range: ChangeRange): DataFrame =
    ctx.spark.baseRelationToDataFrame(relation(ctx, range))
}
