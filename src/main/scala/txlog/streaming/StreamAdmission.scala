package txlog.streaming

import org.apache.spark.sql.Row
import org.apache.spark.sql.types.{DataType, StructType}

import txlog.Snapshot
import txlog.changes.ChangeRange
import txlog.errors.TxlogErrors
import txlog.log.LogListing
import txlog.protocol.{ColumnMapping, CommitFile, FileNames, ReaderGate}
import txlog.table.TableContext

/** Which files a stream of the table `readSnapshot` is at (read with its schema) takes next, as
  * delta-spark's `DeltaSource` admits them: in order, a file taken while both of the batch's limits
  * have room left before it (so at least one, and the file crossing the byte limit too); commits
  * checked as the stream reaches them (see [[TableStreamSource]]).
  *
  * {{{
  * new StreamAdmission(snapshot, options).inCommits(ctx, offset, budget, None)
  * }}}
  */
private[txlog] final class StreamAdmission(readSnapshot: Snapshot, options: StreamOptions) {
  import StreamAdmission._

  private val root = readSnapshot.tablePath
  private val tableId = readSnapshot.metadata.id
  private val md = readSnapshot.metadata
  private val rowTracking = readSnapshot.config.rowTracking

  /** The end of a batch starting at `from`, in the initial snapshot `init`. */
  def inSnapshot(from: StreamOffset, init: InitialFiles, budget: Budget): StreamOffset = {
    val n = init.count
    val last = (budget.files, budget.bytes) match {
      case _ if from.index >= n - 1 => n - 1
      case (None, None)             => n - 1
      case (Some(f), None)          => math.min(from.index + f, n - 1)
      case (f, Some(b)) =>
        var (files, bytes, at, done) = (f.fold(Long.MaxValue)(_.toLong), b, from.index, false)
        while (!done && at < n - 1) {
          val chunk = init.sizes(at, math.min(at + SizeChunk, n - 1))
          chunk.foreach { case (i, size) =>
            if (!done && files > 0 && bytes > 0) { files -= 1; bytes -= size; at = i }
            else done = true
          }
        }
        at
    }
    if (last >= n - 1) StreamOffset(tableId, init.version + 1, -1, initialSnapshot = false)
    else StreamOffset(tableId, init.version, last, initialSnapshot = true)
  }

  /** The end of a batch starting at `from`, past the initial snapshot, and the files it takes: the
    * commits after it, up to `bound` (Trigger.AvailableNow's end), in [[CommitActions.windows]].
    */
  def inCommits(
      ctx: TableContext,
      from: StreamOffset,
      budget: Budget,
      bound: Option[StreamOffset]
  ): (StreamOffset, Seq[Row]) = {
    val upTo = bound.fold(Long.MaxValue)(_.version - 1)
    val commits = listed(ctx, from.version, upTo)
    var pos = from
    var files = budget.files.fold(Long.MaxValue)(_.toLong)
    var bytes = budget.bytes.getOrElse(Long.MaxValue)
    val taken = Seq.newBuilder[Row]
    def room = files > 0 && bytes > 0
    val windows = CommitActions.windows(ctx.spark, commits)
    while (windows.hasNext && room) {
      val window = windows.next()
      val read = CommitActions.read(ctx.spark, ctx.table, window, md, rowTracking)
      val summaries = read.summaries.map(s => s.version -> s).toMap
      // one more than the room: whether a version has adds left past the batch's last
      val limit = budget.files.map(_ => math.min(files + 1, Int.MaxValue).toInt)
      val adds = read
        .adds((pos.version, pos.index), None, v => !skipped(summaries.get(v)), limit)
        .groupBy(StreamFiles.version)
      val it = window.iterator
      while (it.hasNext && room) {
        val v = it.next().version
        summaries.get(v).foreach(check(ctx, _))
        adds.getOrElse(v, Nil).iterator.takeWhile(_ => room).foreach { r =>
          files -= 1
          bytes -= StreamFiles.size(r)
          taken += r
          pos = StreamOffset(tableId, v, StreamFiles.index(r), initialSnapshot = false)
        }
        if (room || !adds.getOrElse(v, Nil).exists(r => StreamFiles.index(r) > pos.index)) {
          pos = StreamOffset(tableId, v + 1, -1, initialSnapshot = false)
        }
      }
    }
    (pos, taken.result())
  }

  /** The files of the commits after `from` up to `end` (both past the initial snapshot). */
  def commitRows(ctx: TableContext, from: StreamOffset, end: StreamOffset): Seq[Row] =
    if (!end.notBefore(from) || end == from) Nil
    else {
      val commits = listed(ctx, from.version, end.version)
      CommitActions.windows(ctx.spark, commits).toSeq.flatMap { window =>
        val read = CommitActions.read(ctx.spark, ctx.table, window, md, rowTracking)
        val summaries = read.summaries.map(s => s.version -> s).toMap
        read.adds(
          (from.version, from.index),
          Some((end.version, end.index)),
          v => !skipped(summaries.get(v)),
          None
        )
      }
    }

  /** Whether the stream passes over the commit `s` whole (skipChangeCommits). */
  private def skipped(s: Option[CommitActions.Summary]): Boolean =
    options.skipChangeCommits && s.exists(_.removes > 0)

  /** A commit the stream reaches: its metadata must be this table's with a schema the stream can
    * read its files with; removing data needs the option that says what to do.
    */
  private def check(ctx: TableContext, s: CommitActions.Summary): Unit = {
    s.protocol.foreach { p =>
      ReaderGate.check(root, s.version, p)
      // the batches' reader is the read snapshot's: with deletion vectors or without
      val dvs = "deletionVectors"
      if (p.hasReaderFeature(dvs) && !readSnapshot.protocol.hasReaderFeature(dvs)) {
        throw TxlogErrors.sourceFeatureEnabled(root, s.version, "deletion vectors")
      }
    }
    s.metadata.foreach(m => checkSchema(ctx, s.version, m))
    if (s.removes > 0 && !options.skipChangeCommits && !options.ignoreChanges) {
      if (s.adds > 0) {
        throw TxlogErrors.sourceUpdate(
          root,
          s.version,
          s.operation.getOrElse(s"removes ${s.removed.getOrElse("files")}")
        )
      }
      if (!options.ignoreDeletes) {
        throw TxlogErrors.sourceDelete(root, s.version, s.removed.getOrElse("a file"))
      }
    }
  }

  /** A schema set at `version`: after the read snapshot's, it must be the stream's (same columns,
    * types the stream reads; a property change passes); at or before it (a stream resumed after a
    * schema change, or started at an earlier version), the files written before and after it must
    * both be readable with the stream's schema (columns added pass; renamed, dropped or retyped
    * ones do not), as delta-spark checks them. Partition columns must not change.
    */
  private def checkSchema(
      ctx: TableContext,
      version: Long,
      m: CommitActions.MetadataChange
  ): Unit = {
    if (m.id != tableId) {
      throw TxlogErrors.offsetInvalid(
        root,
        s"version $version",
        s"the table at $root was replaced at version $version (its id is now ${m.id}, the " +
          s"stream's is $tableId)."
      )
    }
    val found = scala.util
      .Try(DataType.fromJson(m.schemaString))
      .toOption
      .collect { case t: StructType =>
        t
      }
      .getOrElse {
        throw TxlogErrors.malformedLogFile(
          s"$root/_delta_log/${FileNames.commitName(version)}",
          version,
          s"The metaData action's schemaString is not a struct type: ${m.schemaString.take(200)}"
        )
      }
    val read = md.schema
    def names(s: StructType) = s.fieldNames.map(_.toLowerCase).toSet
    def mode(conf: Map[String, String]) =
      conf.getOrElse(ColumnMapping.ModeProperty, "none").trim.toLowerCase
    val ok = m.partitionColumns == md.partitionColumns && readable(found, read) &&
      mode(m.configuration) == mode(md.configuration) && {
        if (version > readSnapshot.version) names(found) == names(read)
        else
          version == 0 || readable(
            StreamAdmission.snapshotAt(ctx, version - 1).metadata.schema,
            read
          )
      }
    if (!ok) {
      throw TxlogErrors.sourceSchemaChanged(
        root,
        version,
        read.catalogString,
        found.catalogString,
        options.starts
      )
    }
  }

  /** Commits listed before, from the stream's position on (at most [[ListedMax]]): a stream with an
    * end (Trigger.AvailableNow, a batch read again) lists the log once for many batches.
    */
  @volatile private var known: IndexedSeq[CommitFile] = IndexedSeq.empty

  /** The commits from `version` up to `upTo`, listed from `version` unless [[known]] has them all;
    * MISSING_LOG_FILES when `version` is gone, LOG_VERSION_GAP for a hole after it.
    */
  private def listed(ctx: TableContext, version: Long, upTo: Long): Seq[CommitFile] = {
    val covered = known.headOption.exists(_.version <= version) &&
      known.lastOption.exists(_.version >= upTo)
    if (!covered) {
      val commits = LogListing.from(ctx.table, version).commits
      commits.headOption.filter(_.version != version).foreach { first =>
        throw TxlogErrors.streamVersionMissing(root, version, first.version)
      }
      commits.zip(commits.drop(1)).find { case (a, b) => b.version != a.version + 1 }.foreach {
        case (a, b) => throw TxlogErrors.versionGap(root, a.version, b.version)
      }
      known = commits.take(ListedMax)
    }
    known.dropWhile(_.version < version).takeWhile(_.version <= upTo)
  }
}

private[txlog] object StreamAdmission {

  /** The room of one batch: files and bytes (None: no limit). */
  final case class Budget(files: Option[Int], bytes: Option[Long])

  /** How many listed commits a stream keeps between batches. */
  private val ListedMax = 100000

  /** How many files' sizes are fetched at a time under a byte limit. */
  private val SizeChunk = 10000L

  /** Whether files written with `data` are read by a stream with `read`: every column of `data` in
    * `read` with its type (nullability and field metadata aside), as delta-spark checks.
    */
  def readable(data: StructType, read: StructType): Boolean =
    data.fields.forall { f =>
      read.fields.find(_.name.equalsIgnoreCase(f.name)).exists { r =>
        r.dataType.catalogString.equalsIgnoreCase(f.dataType.catalogString) &&
        (r.nullable || !f.nullable)
      }
    }

  /** The first version a stream reads given `start` (its options), on the table whose latest
    * snapshot is `latest`: VERSION_NOT_FOUND for a version the log does not hold,
    * TIMESTAMP_OUT_OF_RANGE for a time after the latest commit.
    */
  def firstVersion(ctx: TableContext, latest: Snapshot, start: StreamOptions.Start): Long =
    start match {
      case StreamOptions.Latest => latest.version + 1
      case StreamOptions.AtVersion(v) =>
        val listing = ctx.snapshots.listing()
        val earliest = listing.commits.headOption.fold(latest.version)(_.version)
        if (v < earliest || v > latest.version) {
          throw TxlogErrors.versionNotFound(ctx.root, v, earliest, latest.version)
        }
        v
      case StreamOptions.AtTimestamp(t) =>
        ChangeRange(Right(t), None).resolve(ctx.snapshots.listing(), latest)._1
    }

  /** The snapshot of `version` (an initial snapshot resumed after a restart). */
  def snapshotAt(ctx: TableContext, version: Long): Snapshot = ctx.snapshots.at(version)
}
