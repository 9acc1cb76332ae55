package txlog.streaming

import org.apache.spark.internal.Logging
import org.apache.spark.sql.Row
import org.apache.spark.sql.connector.read.streaming.{ReadLimit, Offset => StreamingOffset}
import org.apache.spark.sql.execution.datasources.PartitionDirectory
import org.apache.spark.sql.types.StructType

import txlog.Snapshot
import txlog.log.LogListing
import txlog.scan.ReadSpec
import txlog.table.TableContext

/** A table as a stream source (`spark.readStream.format("txlog").load(path)`), as delta-spark's
  * `DeltaSource`: the rows of the initial snapshot (the latest version when the query starts, its
  * files by modification time then path), then the files each later commit adds with dataChange =
  * true, read with their deletion vectors and column mapping; or, with `startingVersion` /
  * `startingTimestamp`, the commits from there on. Micro-batches are bounded by
  * `maxFilesPerTrigger` / `maxBytesPerTrigger` ([[StreamOptions]]; `Trigger.AvailableNow` reads
  * what was committed when the query started, in such batches). A batch never spans the end of the
  * initial snapshot and later commits, so a batch's files follow from its two offsets alone. It is
  * Spark's DSv2 micro-batch stream ([[SnapshotStream]]): a batch's files are read by the executors
  * in Spark's file partitions ([[BatchReader]]).
  *
  * The log is read from the last offset on ([[CommitActions]]: only the commits after it, never a
  * replay), [[CommitActions.Window]] commits at a time. A commit removing data fails the stream
  * unless the options say what to do with it; a schema the stream cannot read its files with fails
  * it (STREAMING_SOURCE_SCHEMA_CHANGED, the version named); a commit cleaned away before the stream
  * read it is MISSING_LOG_FILES. Driver memory: the rows of one batch's files (at most
  * maxFilesPerTrigger; every file available with `Trigger.Once`) and one summary per commit of a
  * window; the initial snapshot's files stay on the executors ([[InitialFiles]]).
  *
  * {{{
  * spark.readStream.format("txlog").option("maxFilesPerTrigger", 100).load("/data/events")
  * }}}
  */
private[txlog] final class TableStreamSource(
    ctx: TableContext,
    options: StreamOptions,
    readSnapshot: Snapshot,
    checkpoint: String
) extends SnapshotStream(ctx, options, readSnapshot, checkpoint)
    with Logging {

  private val spec = ReadSpec(readSnapshot)

  override protected lazy val reader: BatchReader = StreamFiles.reader(ctx.spark, spec)

  @volatile private var bound: Option[StreamOffset] = None
  @volatile private var planned: Option[(StreamOffset, StreamOffset, Seq[Row])] = None
  @volatile private var lastRead: Option[StreamOffset] = None

  override def latestOffset(startOffset: StreamingOffset, limit: ReadLimit): StreamingOffset = {
    val from = StreamOffset.of(Option(startOffset).getOrElse(initialOffset()), root, tableId)
    if (availableNow && bound.isEmpty) {
      bound = Some(StreamOffset(tableId, latestVersion() + 1, -1, initialSnapshot = false))
      logInfo(s"txlog stream of $root: Trigger.AvailableNow reads up to ${bound.get}")
    }
    val room = budget(limit)
    val end =
      if (from.initialSnapshot) admission.inSnapshot(from, initialAt(from.version), room)
      else {
        val (end, files) = admission.inCommits(ctx, from, room, bound)
        // the batch's files, for planInputPartitions to take instead of reading the commits again
        planned = Some((from, end, files))
        end
      }
    offered(from, end)
  }

  override protected def batchFiles(
      from: StreamOffset,
      end: StreamOffset
  ): Seq[PartitionDirectory] = {
    lastRead = Some(end)
    StreamFiles.directories(spec, files(from, end, s"$from to $end"))
  }

  private def files(from: StreamOffset, end: StreamOffset, label: String): Seq[Row] = {
    val files: Seq[Row] =
      if (end.initialSnapshot) initialAt(end.version).rows(from.index, end.index)
      else {
        // the rest of the initial snapshot, then the commits' adds up to the end
        val (snapshotRows, commitsFrom) =
          if (from.initialSnapshot) (initialAt(from.version).rows(from.index, Long.MaxValue), None)
          else (Nil, Some(from))
        snapshotRows ++ commitsFrom.toSeq.flatMap { f =>
          planned match {
            case Some((p, e, rows)) if p == f && e == end => rows
            case _                                        => admission.commitRows(ctx, f, end)
          }
        }
      }
    logInfo(s"txlog stream of $root: ${files.size} files from $label")
    files
  }

  /** The latest version of the table, listed from the read snapshot's. */
  private def latestVersion(): Long =
    LogListing
      .from(ctx.table, readSnapshot.version)
      .commits
      .lastOption
      .fold(readSnapshot.version)(_.version)

  /** The table, and the version of the files the last batch read (Spark's progress shows it). */
  override def toString: String =
    s"TxlogSource[$root]" + lastRead.fold("")(o => s" at version ${o.version}")
}
