package txlog.replay

import org.apache.spark.sql.{DataFrame, Row, SparkSession}

import txlog.errors.TxlogErrors
import txlog.log.LogSegment
import txlog.protocol.ReaderGate
import txlog.util.Jobs

/** The non-file state of a log segment for [[SnapshotLoader]]: the rows of its checkpoint and tail
  * (collected by a job where they are not on the driver already), reconciled, and checked for a
  * protocol and metadata this reader supports.
  *
  * {{{
  * val state = StateReads.collectState(spark, segment, checkpoint, tail, NonFileState.empty)
  * }}}
  */
private[replay] object StateReads {

  /** The non-file state of `segment` onto `initial`: `checkpointRows` (read on the driver), then
    * the rows of `checkpoint` (by a job) and of `tail`.
    */
  def collectState(
      spark: SparkSession,
      segment: LogSegment,
      checkpoint: Option[DataFrame],
      tail: Tail,
      initial: NonFileState,
      checkpointRows: Seq[Row] = Nil
  ): NonFileState = {
    val rows = tail match {
      case t: DriverTail =>
        checkpointRows ++
          checkpoint.fold(Seq.empty[Row])(cp =>
            collect(spark, segment, NonFileState.checkpointRows(cp))
          ) ++
          NonFileState.driverTailRows(t.rows, segment.version)
      case t: DistributedTail => collectRows(spark, segment, checkpoint, t)
    }
    reconciled(segment, rows, initial)
  }

  /** The rows of the non-file state of `segment` (its checkpoint's and a distributed tail's), by a
    * job.
    */
  def collectRows(
      spark: SparkSession,
      segment: LogSegment,
      checkpoint: Option[DataFrame],
      tail: DistributedTail
  ): Seq[Row] =
    collect(spark, segment, NonFileState.rowsToCollect(checkpoint, tail.df, segment.version))

  private def collect(spark: SparkSession, segment: LogSegment, rows: DataFrame): Seq[Row] =
    Jobs.named(spark, s"read protocol and metadata of ${segment.table.root} v${segment.version}") {
      ReadErrors.translate(segment)(rows.collect().toSeq)
    }

  /** The non-file state of `rows` reconciled onto `initial`: a snapshot needs a protocol and
    * metadata, and a protocol this reader supports.
    */
  def reconciled(segment: LogSegment, rows: Seq[Row], initial: NonFileState) = {
    val table = segment.table.root
    val state = NonFileState.reconcile(rows, initial)
    val protocol =
      state.protocol.getOrElse(throw TxlogErrors.missingProtocol(table, segment.version))
    if (state.metadata.isEmpty) throw TxlogErrors.missingMetadata(table, segment.version)
    ReaderGate.check(table, segment.version, protocol)
    state
  }
}
