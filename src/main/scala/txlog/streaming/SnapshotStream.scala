package txlog.streaming

import org.apache.spark.sql.connector.read.streaming.{
  ReadAllAvailable,
  ReadLimit,
  SupportsAdmissionControl,
  SupportsTriggerAvailableNow,
  Offset => StreamingOffset
}
import org.apache.spark.sql.execution.streaming.{Offset, Source}

import txlog.Snapshot
import txlog.table.TableContext

/** What the streams of a table share ([[TableStreamSource]], [[ChangeStreamSource]]): where they
  * start (the initial snapshot of `readSnapshot`, the latest version when the query started, or the
  * version the options name), the initial snapshot's numbered files (kept until the stream is past
  * them), the batch limits of the options and Trigger.AvailableNow's end.
  */
private[txlog] abstract class SnapshotStream(
    ctx: TableContext,
    options: StreamOptions,
    readSnapshot: Snapshot
) extends Source
    with SupportsAdmissionControl
    with SupportsTriggerAvailableNow {

  protected val root: String = ctx.root
  protected val tableId: String = readSnapshot.metadata.id
  protected val admission = new StreamAdmission(readSnapshot, options)

  /** Where the stream starts without an offset of its own. */
  protected lazy val start: StreamOffset = options.startingVersion match {
    case None => StreamOffset(tableId, readSnapshot.version, -1, initialSnapshot = true)
    case Some(s) =>
      StreamOffset(tableId, StreamAdmission.firstVersion(ctx, readSnapshot, s), -1, false)
  }

  @volatile private var initial: Option[InitialFiles] = None
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

  /** The offset latestOffset gives for a batch from `from` to `end`: none before the first file;
    * with `startingVersion` = latest, the start itself before the first batch with files (an empty
    * batch), so that Spark's offset log holds where the stream started: a restart before that batch
    * was recorded done would find another latest version, and read none of its commits.
    */
  protected def offered(
      startOffset: StreamingOffset,
      from: StreamOffset,
      end: StreamOffset
  ): StreamingOffset =
    if (startOffset != null) end
    else if (end == from) null
    else if (options.startingVersion.contains(StreamOptions.Latest)) start
    else end

  override def getDefaultReadLimit: ReadLimit =
    ReadLimit.maxFiles(options.filesPerBatch.getOrElse(Int.MaxValue))

  override def prepareForTriggerAvailableNow(): Unit = availableNow = true

  override def getOffset: Option[Offset] =
    throw new UnsupportedOperationException("latestOffset(start, limit) is used instead")

  /** Once a committed batch is past the initial snapshot, its files are released. */
  override def commit(end: Offset): Unit =
    if (!StreamOffset.of(end, root, tableId).initialSnapshot) release()

  override def stop(): Unit = release()

  private def release(): Unit = synchronized { initial.foreach(_.release()); initial = None }
}
