package txlog.streaming

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.connector.read.streaming.{ReadLimit, Offset => StreamingOffset}
import org.apache.spark.sql.execution.streaming.Offset
import org.apache.spark.sql.types.StructType

import txlog.Snapshot
import txlog.changes.{ChangeFile, ChangeFiles, ChangeScan}
import txlog.deletionvectors.DvDescriptor
import txlog.log.LogListing
import txlog.replay.FileKeys
import txlog.scan.ReadSpec
import txlog.table.TableContext
import txlog.timetravel.CommitTimeline

/** The change data feed of a table as a stream (`readChangeFeed` = true), as delta-spark's: the
  * table's columns then `_change_type`, `_commit_version` and `_commit_timestamp`, as the batch
  * change feed reads them ([[txlog.changes.ChangeFiles]]: `cdc` files where a commit has them, else
  * its adds as `insert` and removes as `delete`, deletion vectors compared). Without
  * `startingVersion` / `startingTimestamp` the initial snapshot comes first, each row an `insert`
  * of its version. Commits are taken whole (the first of a batch always), within
  * `maxFilesPerTrigger` / `maxBytesPerTrigger` counted in change files; offsets as
  * [[TableStreamSource]]'s, past the snapshot always at a version's start. The feed not recorded,
  * or a schema the stream's cannot read, fails the stream as the batch feed fails
  * (CHANGE_DATA_NOT_RECORDED, CHANGE_DATA_SCHEMA_INCOMPATIBLE).
  *
  * {{{
  * spark.readStream.format("txlog").option("readChangeFeed", "true").load("/data/events")
  * }}}
  */
private[txlog] final class ChangeStreamSource(
    ctx: TableContext,
    options: StreamOptions,
    readSnapshot: Snapshot
) extends SnapshotStream(ctx, options, readSnapshot) {

  private val spec = ReadSpec(readSnapshot)

  override val schema: StructType = ChangeStreamSource.schema(readSnapshot)

  @volatile private var bound: Option[Long] = None

  override def latestOffset(startOffset: StreamingOffset, limit: ReadLimit): StreamingOffset = {
    val from = Option(startOffset).map(StreamOffset.of(_, root, tableId)).getOrElse(start)
    val listing = ctx.snapshots.listing()
    if (availableNow && bound.isEmpty) bound = Some(listing.latestVersion)
    val room = budget(limit)
    val end =
      if (from.initialSnapshot) admission.inSnapshot(from, initialAt(from.version), room)
      else commits(listing, from, room)
    offered(startOffset, from, end)
  }

  /** The end of a batch from `from` (a version's start): whole commits while the budget has room
    * before each, the first always.
    */
  private def commits(
      listing: LogListing,
      from: StreamOffset,
      budget: StreamAdmission.Budget
  ): StreamOffset = {
    val last = bound.fold(listing.latestVersion)(_.min(listing.latestVersion))
    var files = budget.files.fold(Long.MaxValue)(_.toLong)
    var bytes = budget.bytes.getOrElse(Long.MaxValue)
    var next = from.version
    var full = false
    while (!full && next <= last) {
      val to = math.min(last, next + ChangeStreamSource.Window - 1)
      val byVersion = changes(listing, next, to).groupBy(_.version)
      (next to to).iterator.takeWhile(_ => !full).foreach { v =>
        val cs = byVersion.getOrElse(v, Nil)
        val size = cs.map(_.size).sum
        if (v != from.version && (cs.size > files || size > bytes)) full = true
        else { files -= cs.size; bytes -= size; next = v + 1 }
      }
    }
    StreamOffset(tableId, next, -1, initialSnapshot = false)
  }

  /** The change files of versions `from` to `to`, read with the stream's schema. */
  private def changes(listing: LogListing, from: Long, to: Long): Seq[ChangeFile] =
    if (to < from) Nil
    else
      ChangeFiles.of(
        ctx.spark,
        listing,
        from,
        to,
        ctx.snapshots.at(listing, from).metadata,
        readSnapshot.metadata,
        CommitTimeline(listing, readSnapshot.protocol, readSnapshot.metadata)
      )

  override def getBatch(startOffset: Option[Offset], endOffset: Offset): DataFrame = {
    val end = StreamOffset.of(endOffset, root, tableId)
    val from = startOffset.map(StreamOffset.of(_, root, tableId))
    val files: Seq[ChangeFile] =
      if (end.initialSnapshot) inserts(end.version, from.fold(-1L)(_.index), end.index)
      else {
        val (snapshotFiles, first) = from match {
          case Some(o) if o.initialSnapshot =>
            (inserts(o.version, o.index, Long.MaxValue), o.version + 1)
          case Some(o) => (Nil, o.version)
          case None if options.startingVersion.isEmpty =>
            (inserts(end.version - 1, -1L, Long.MaxValue), end.version)
          case None => (Nil, start.version)
        }
        snapshotFiles ++ changes(ctx.snapshots.listing(), first, end.version - 1)
      }
    val label = s"change data feed ${from.fold("start")(_.toString)} to $end"
    StreamFiles.streamingFrame(ctx.spark, ChangeScan.relation(ctx.spark, spec, files, label))
  }

  /** The initial snapshot's files numbered after `after` up to `upTo`, as inserts of its version.
    */
  private def inserts(version: Long, after: Long, upTo: Long): Seq[ChangeFile] = {
    val init = initialAt(version)
    init.rows(after, upTo).map { r: Row =>
      ChangeFile(
        version,
        init.snapshot.timestamp,
        Some("insert"),
        FileKeys.canonicalize(root, r.getString(0)),
        r.getLong(1),
        r.getLong(2),
        r.getStruct(4),
        Option(r.getStruct(3)).map(DvDescriptor.fromRow),
        None
      )
    }
  }

  override def toString: String = s"TxlogChangeSource[$root]"
}

private[txlog] object ChangeStreamSource {

  /** How many commits' change files are read at once. */
  val Window = 100

  /** The stream's schema: the change data feed's of the table at `snapshot`. */
  def schema(snapshot: Snapshot): StructType =
    ChangeScan.relation(snapshot.spark, ReadSpec(snapshot), Nil, "schema").schema
}
