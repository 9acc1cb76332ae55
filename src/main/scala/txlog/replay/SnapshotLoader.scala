package txlog.replay

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.col

import txlog.{Snapshot, TxlogErrors}
import txlog.actions.ActionSchemas
import txlog.log.{LogListing, LogSegment}
import txlog.table.ReaderGate
import txlog.timetravel.{CommitTimeline, InCommitTimestamps}
import txlog.util.Jobs

/** Builds a [[Snapshot]] from a log segment: one small job collects protocol, metadata, txns,
  * domain metadata and sidecar names to the driver; the file state stays a lazy DataFrame.
  */
private[txlog] object SnapshotLoader {
  def load(spark: SparkSession, listing: LogListing, segment: LogSegment): Snapshot = {
    val table = segment.table
    val tail = TailActions.read(spark, table, segment.deltas)
    val checkpoint = segment.checkpoint.map(
      LogActions.checkpoint(spark, table, _, ActionSchemas.checkpointNonFileRow)
    )
    val state = collectState(spark, segment, checkpoint, tail.df, NonFileState.empty)
    new Snapshot(
      spark,
      segment,
      state,
      timestamp(listing, segment, state),
      FileState.of(spark, segment, state.sidecars, tail, lean = false),
      FileState.of(spark, segment, state.sidecars, tail, lean = true)
    )
  }

  /** The snapshot at `segment`, built on `previous` when `segment` only adds commits after it and
    * `previous` is cached: its non-file state is carried over and its cached files are the base the
    * new commits are reconciled onto. Otherwise a full [[load]]. The new snapshot is cached too.
    */
  def update(
      spark: SparkSession,
      listing: LogListing,
      segment: LogSegment,
      previous: Snapshot
  ): Snapshot = {
    val old = previous.segment
    val extendsPrevious = segment.checkpoint == old.checkpoint &&
      segment.version > old.version && segment.deltas.startsWith(old.deltas)
    if (!extendsPrevious || !previous.isCached) return load(spark, listing, segment)

    val newDeltas = segment.deltas.drop(old.deltas.length)
    val newTail = TailActions.read(spark, segment.table, newDeltas)
    val state =
      collectState(spark, segment, None, newTail.df, previous.state.copy(inCommitTimestamp = None))
    val base = previous.reconciledFiles
    new Snapshot(
      spark,
      segment,
      state,
      timestamp(listing, segment, state),
      FileState.onto(spark, segment, Some(base), newTail, lean = false),
      FileState.onto(spark, segment, Some(FileState.narrow(base)), newTail, lean = true)
    )
      .cache()
  }

  private def collectState(
      spark: SparkSession,
      segment: LogSegment,
      checkpoint: Option[DataFrame],
      tail: DataFrame,
      initial: NonFileState
  ): NonFileState = {
    val table = segment.table.root
    val rows = Jobs.named(spark, s"read protocol and metadata of $table v${segment.version}") {
      ReadErrors.translate(segment) {
        NonFileState.rowsToCollect(checkpoint, tail, segment.version).collect().toSeq
      }
    }
    val state = NonFileState.reconcile(rows, initial)
    val protocol =
      state.protocol.getOrElse(throw TxlogErrors.missingProtocol(table, segment.version))
    if (state.metadata.isEmpty) throw TxlogErrors.missingMetadata(table, segment.version)
    ReaderGate.check(table, segment.version, protocol)
    state
  }

  /** The version's commit timestamp: in-commit when enabled, else the adjusted file time. */
  private def timestamp(listing: LogListing, segment: LogSegment, state: NonFileState): Long = {
    val ict = InCommitTimestamps.enabled(state.protocol.get, state.metadata.get)
    if (ict) {
      state.inCommitTimestamp
        .orElse(
          listing
            .commit(segment.version)
            .map(InCommitTimestamps.read(segment.table, _))
        )
        .getOrElse(segment.checkpoint.map(_.files.head.file.modificationTime).getOrElse(0L))
    } else {
      CommitTimeline(listing)
        .timestampOf(segment.version)
        .orElse(segment.checkpoint.map(_.files.head.file.modificationTime))
        .getOrElse(0L)
    }
  }
}
