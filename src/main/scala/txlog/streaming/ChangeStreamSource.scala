package txlog.streaming

import org.apache.spark.sql.Row
import org.apache.spark.sql.connector.read.streaming.{ReadLimit, Offset => StreamingOffset}
import org.apache.spark.sql.execution.datasources.PartitionDirectory
import org.apache.spark.sql.types.StructType

import txlog.Snapshot
import txlog.changes.{ChangeFile, ChangeFiles, ChangeScan}
import txlog.deletionvectors.DvDescriptor
import txlog.log.LogListing
import txlog.replay.FileKeys
import txlog.scan.{ReadSpec, TableParquetFormat}
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
    readSnapshot: Snapshot,
    checkpoint: String
) extends SnapshotStream(ctx, options, readSnapshot, checkpoint) {

  // read as a table with deletion vectors: a batch's files may carry vectors to compare (the
  // reader is one for the whole stream)
  private val spec = ReadSpec(readSnapshot).copy(deletionVectors = true)

  override protected lazy val reader: BatchReader = new BatchReader(
    ctx.spark,
    new TableParquetFormat(spec, changes = true),
    ChangeScan.dataSchema(spec),
    ChangeScan.partitionSchema(spec),
    ChangeScan.schema(spec)
  )

  @volatile private var bound: Option[Long] = None

  override def latestOffset(startOffset: StreamingOffset, limit: ReadLimit): StreamingOffset = {
    val from = StreamOffset.of(Option(startOffset).getOrElse(initialOffset()), root, tableId)
    val listing = ctx.snapshots.listing()
    if (availableNow && bound.isEmpty) bound = Some(listing.latestVersion)
    val room = budget(limit)
    val end =
      if (from.initialSnapshot) admission.inSnapshot(from, initialAt(from.version), room)
      else commits(listing, from, room)
    offered(from, end)
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

  override protected def batchFiles(
      from: StreamOffset,
      end: StreamOffset
  ): Seq[PartitionDirectory] = {
    val files: Seq[ChangeFile] =
      if (end.initialSnapshot) inserts(end.version, from.index, end.index)
      else if (from.initialSnapshot) {
        inserts(from.version, from.index, Long.MaxValue) ++
          changes(ctx.snapshots.listing(), from.version + 1, end.version - 1)
      } else changes(ctx.snapshots.listing(), from.version, end.version - 1)
    ChangeScan.directories(spec, files)
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
  def schema(snapshot: Snapshot): StructType = ChangeScan.schema(ReadSpec(snapshot))
}
