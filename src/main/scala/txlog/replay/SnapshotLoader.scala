package txlog.replay

import java.net.URI

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.col

import txlog.{Snapshot, TxlogErrors}
import txlog.log.{LogListing, LogSegment}
import txlog.table.ReaderGate
import txlog.timetravel.{CommitTimeline, InCommitTimestamps}
import txlog.util.Jobs

/**
 * Builds a [[Snapshot]] from a log segment: one small job collects protocol, metadata, txns,
 * domain metadata and sidecar names to the driver; the file state stays a lazy DataFrame.
 */
private[txlog] object SnapshotLoader {
  /** Tails up to this many bytes of JSON are broadcast to the checkpoint anti-join. */
  private val BroadcastTailBytes = 64L * 1024 * 1024

  def load(spark: SparkSession, listing: LogListing, segment: LogSegment): Snapshot = {
    val table = segment.table
    val tail = LogActions.tail(spark, table, segment.deltas)
    val checkpoint = segment.checkpoint.map(LogActions.checkpoint(spark, table, _))
    val state = collectState(spark, segment, checkpoint, tail, NonFileState.empty)

    val checkpointFiles = checkpoint.map { cp =>
      val inline = cp.select("version", "idx", "add", "remove")
      if (state.sidecars.isEmpty) inline
      else inline.unionByName(LogActions.sidecars(spark, table, segment.checkpointVersion,
        state.sidecars.map(sidecarPath(segment, _))))
    }
    val files = FileReconciler.reconcile(
      checkpointFiles.map(FileReconciler.keyed(_, table.root)), tail, table.root,
      segment.tailBytes <= BroadcastTailBytes)
    new Snapshot(spark, segment, state, timestamp(listing, segment, state), files)
  }

  /**
   * The snapshot at `segment`, built on `previous` when `segment` only adds commits after it:
   * its non-file state is carried over and, when its files are cached, they are the base
   * the new commits are reconciled onto. Otherwise a full [[load]].
   */
  def update(spark: SparkSession, listing: LogListing, segment: LogSegment,
      previous: Snapshot): Snapshot = {
    val old = previous.segment
    val extendsPrevious = segment.checkpoint == old.checkpoint &&
      segment.version > old.version && segment.deltas.startsWith(old.deltas)
    if (!extendsPrevious || !previous.isCached) return load(spark, listing, segment)

    val table = segment.table
    val newTail = LogActions.tail(spark, table, segment.deltas.drop(old.deltas.length))
    val state = collectState(spark, segment, None, newTail, previous.state.copy(
      inCommitTimestamp = None))
    val newTailBytes = segment.tailBytes - old.tailBytes
    val files = FileReconciler.reconcile(Some(previous.reconciledFiles), newTail, table.root,
      newTailBytes <= BroadcastTailBytes)
    new Snapshot(spark, segment, state, timestamp(listing, segment, state), files).cache()
  }

  private def collectState(spark: SparkSession, segment: LogSegment,
      checkpoint: Option[DataFrame], tail: DataFrame, initial: NonFileState): NonFileState = {
    val table = segment.table.root
    val rows = Jobs.named(spark, s"read protocol and metadata of $table v${segment.version}") {
      ReadErrors.translate(segment) {
        NonFileState.rowsToCollect(checkpoint, tail, segment.version).collect().toSeq
      }
    }
    val state = NonFileState.reconcile(rows, initial)
    val protocol = state.protocol.getOrElse(
      throw TxlogErrors.missingProtocol(table, segment.version))
    if (state.metadata.isEmpty) throw TxlogErrors.missingMetadata(table, segment.version)
    ReaderGate.check(table, segment.version, protocol)
    state
  }

  /** Sidecar paths are relative to `_delta_log/_sidecars` unless absolute. */
  private def sidecarPath(segment: LogSegment, path: String): String = {
    val p = new Path(new URI(path))
    if (p.isAbsolute) p.toString else new Path(segment.table.sidecarDir, p).toString
  }

  /** The version's commit timestamp: in-commit when enabled, else the adjusted file time. */
  private def timestamp(listing: LogListing, segment: LogSegment, state: NonFileState): Long = {
    val ict = InCommitTimestamps.enabled(state.protocol.get, state.metadata.get)
    if (ict) {
      state.inCommitTimestamp.orElse(listing.commit(segment.version)
        .map(InCommitTimestamps.read(segment.table, _)))
        .getOrElse(segment.checkpoint.map(_.files.head.file.modificationTime).getOrElse(0L))
    } else {
      CommitTimeline(listing).timestampOf(segment.version)
        .orElse(segment.checkpoint.map(_.files.head.file.modificationTime)).getOrElse(0L)
    }
  }
}
