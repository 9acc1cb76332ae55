package txlog.streaming

import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming.{
  MicroBatchStream,
  ReadAllAvailable,
  ReadLimit,
  SupportsAdmissionControl,
  SupportsTriggerAvailableNow,
  Offset => StreamingOffset
}

import txlog.Snapshot
import txlog.table.TableContext

/** What the streams of a table share ([[TableStreamSource]], [[ChangeStreamSource]]), Spark's DSv2
  * micro-batch streams with admission control: where they start (the initial snapshot of
  * `readSnapshot`, the latest version when the query started, or the version the options name; kept
  * in the query's checkpoint, [[StreamStart]]), the initial snapshot's numbered files (kept until
  * the stream is past them), the batch limits of the options, Trigger.AvailableNow's end, and the
  * reading of a batch's files ([[BatchReader]]). `checkpoint` is the source's directory in the
  * query's checkpoint.
  */
private[txlog] abstract class SnapshotStream(
    ctx: TableContext,
    options: StreamOptions,
    readSnapshot: Snapshot,
    checkpoint: String
) extends MicroBatchStream
    with SupportsAdmissionControl
    with SupportsTriggerAvailableNow {

  protected val root: String = ctx.root
  protected val tableId: String = readSnapshot.metadata.id
  protected val admission = new StreamAdmission(readSnapshot, options)

  /** Where the stream starts without an offset of its own. */
  private lazy val start: StreamOffset = options.startingVersion match {
    case None => StreamOffset(tableId, readSnapshot.version, -1, initialSnapshot = true)
    case Some(s) =>
      StreamOffset(tableId, StreamAdmission.firstVersion(ctx, readSnapshot, s), -1, false)
  }

  @volatile private var initial: Option[InitialFiles] = None
  @volatile private var lastPlanned: Option[(StreamOffset, StreamOffset, Array[InputPartition])] =
    None
  @volatile protected var availableNow = false

  /** The initial snapshot of `version` (the read snapshot's, or one resumed after a restart). */
  protected def initialAt(version: Long): InitialFiles = synchronized {
    initial.filter(_.version == version).getOrElse {
      initial.foreach(_.release())
      val snap =
        if (version == readSnapshot.version) readSnapshot
        else StreamAdmission.snapshotAt(ctx, version)
      val files = new InitialFiles(snap)
      initial = Some(files)
      files
    }
  }

  /** The room of the next batch under `limit` (none with Trigger.Once's all-available). */
  protected def budget(limit: ReadLimit): StreamAdmission.Budget = limit match {
    case _: ReadAllAvailable => StreamAdmission.Budget(None, None)
    case _                   => StreamAdmission.Budget(options.filesPerBatch, options.maxBytes)
  }

  /** The reader of the stream's batches. */
  protected def reader: BatchReader

  /** The directories of the files of the batch after `from` up to `end`. */
  protected def batchFiles(
      from: StreamOffset,
      end: StreamOffset
  ): Seq[org.apache.spark.sql.execution.datasources.PartitionDirectory]

  private lazy val startFile = new StreamStart(ctx.spark, checkpoint, root, tableId)
  // the start the checkpoint holds, read once; the start given before it is written there
  private lazy val recordedStart: Option[StreamOffset] = startFile.read()
  @volatile private var unrecordedStart: Option[StreamOffset] = None

  /** Where the stream starts: as the query's checkpoint holds it, else worked out now (and written
    * there with the first batch offered, [[offered]]).
    */
  override def initialOffset(): StreamingOffset = recordedStart.getOrElse {
    unrecordedStart = Some(start)
    start
  }

  override def deserializeOffset(json: String): StreamingOffset =
    StreamOffset.parse(json, root, tableId)

  /** Spark asks with a read limit (admission control). */
  override def latestOffset(): StreamingOffset =
    throw new UnsupportedOperationException("latestOffset(start, limit) is used instead")

  /** The offset latestOffset gives for a batch from `from` to `end`: none when there is nothing
    * new. The first batch from a start worked out in this run writes that start into the checkpoint
    * first ([[StreamStart]]): a restart before the batch is done reads the same files, while a run
    * that read nothing leaves no start behind (the next works it out again, as delta-spark's stream
    * does with `startingVersion` = latest).
    */
  protected def offered(from: StreamOffset, end: StreamOffset): StreamingOffset =
    if (end == from) null
    else {
      if (unrecordedStart.contains(from)) {
        val recorded = startFile.write(from)
        // another run wrote its own start into this checkpoint meanwhile: not this batch's
        if (recorded != from) {
          throw txlog.errors.TxlogErrors.offsetInvalid(
            root,
            recorded.json,
            s"this run starts at $from, and a query sharing the checkpoint wrote this start " +
              "meanwhile. One query per checkpoint location: start this one with another."
          )
        }
        unrecordedStart = None
      }
      end
    }

  /** The batch from `start` to `end`: its files, read from the log (or taken from what latestOffset
    * admitted) when Spark plans the batch's scan, as input partitions.
    */
  override def planInputPartitions(
      startOffset: StreamingOffset,
      endOffset: StreamingOffset
  ): Array[InputPartition] = {
    val from = StreamOffset.of(startOffset, root, tableId)
    val to = StreamOffset.of(endOffset, root, tableId)
    // Spark may plan one batch more than once (its plan, then a writer's); read its files once
    lastPlanned match {
      case Some((f, t, partitions)) if f == from && t == to => partitions
      case _ =>
        val partitions =
          if (from.notBefore(to)) Array.empty[InputPartition]
          else reader.partitions(batchFiles(from, to))
        lastPlanned = Some((from, to, partitions))
        partitions
    }
  }

  override def createReaderFactory(): PartitionReaderFactory = reader.factory

  override def getDefaultReadLimit: ReadLimit =
    ReadLimit.maxFiles(options.filesPerBatch.getOrElse(Int.MaxValue))

  override def prepareForTriggerAvailableNow(): Unit = availableNow = true

  /** Once a committed batch is past the initial snapshot, its files are released. */
  override def commit(end: StreamingOffset): Unit =
    if (!StreamOffset.of(end, root, tableId).initialSnapshot) release()

  override def stop(): Unit = release()

  private def release(): Unit = synchronized { initial.foreach(_.release()); initial = None }
}
