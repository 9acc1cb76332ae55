package txlog.replay

import org.apache.spark.sql.{DataFrame, Row, SparkSession}

import txlog.config.TxlogConf
import txlog.Snapshot
import txlog.protocol.ActionSchemas
import txlog.log.{LogListing, LogSegment}
import txlog.timetravel.CommitTimeline

/** Builds a [[Snapshot]] from a log segment: one small job collects protocol, metadata, txns,
  * domain metadata and sidecar names to the driver (no job for a small log: see
  * [[DriverCheckpoint]] and [[Tail]]); the file state stays a lazy DataFrame.
  *
  * Driver memory: the collected rows are the non-file state (one per app id, domain and sidecar,
  * never per file); a small tail is bounded by [[LogLineReader.LocalReadMaxBytesConf]], an update's
  * overlay by [[DriverBudgets.MaxOverlayBytesConf]], a large tail's key hashes by
  * [[DriverBudgets.MaxKeyHashBytesConf]].
  */
private[txlog] object SnapshotLoader {

  /** An update keeps building on the cached snapshot it started from (instead of caching the new
    * files again) while the file actions of the commits since then, held on the driver, are at most
    * this many (default 100,000) and their estimated bytes at most
    * [[DriverBudgets.MaxOverlayBytesConf]] (default 128 MiB). The byte budget is the bound that
    * matters for driver memory; this count is kept for compatibility.
    */
  val MaxOverlayActionsConf: String = TxlogConf.UpdateMaxOverlayActions.key

  /** The snapshot at `segment`. With `previous`, an earlier snapshot of the same checkpoint whose
    * commits `segment` extends, and a tail small enough for the driver, its non-file state is
    * carried over and only the new commits' actions are reconciled onto it: no job reads the
    * checkpoint's protocol and metadata again (a writer's next transaction starts this way).
    */
  def load(
      spark: SparkSession,
      listing: LogListing,
      segment: LogSegment,
      previous: Option[Snapshot] = None
  ): Snapshot = build(spark, listing, segment, previous, None, None)._1

  /** What the load of `segment` read that an earlier snapshot on the same checkpoint can reuse: the
    * rows a job collected for its non-file state (a tail read by tasks: protocol, metadata, txn and
    * domain metadata actions, sidecars, and the commitInfo of its version), or its tail read on the
    * driver. Held on the driver only while a caller needs them; as many as the load held.
    */
  final case class StateRows(segment: LogSegment, rows: Seq[Row], tail: Option[DriverTail] = None)

  /** [[load]], with what it read that an earlier snapshot can reuse: see [[loadBefore]]. With
    * `keepFiles`, a checkpoint read on the driver keeps the file actions its load read for one
    * later pass over them (a vacuum's: see [[DriverCheckpoint.of]]).
    */
  def loadKeepingRows(
      spark: SparkSession,
      listing: LogListing,
      segment: LogSegment,
      keepFiles: Boolean = false
  ): (Snapshot, Option[StateRows]) = {
    val (snapshot, rows, tail) = build(spark, listing, segment, None, None, None, keepFiles)
    val kept = tail match {
      case t: DriverTail => Some(StateRows(segment, Nil, Some(t)))
      case _             => rows.map(StateRows(segment, _))
    }
    (snapshot, kept)
  }

  /** The snapshot at `segment`, an earlier version on the same checkpoint as `later`'s (whose
    * commits `segment`'s are the first of), built from what `later`'s load read: its tail's rows up
    * to `segment`'s version when the tail was read on the driver (no commit read again), else its
    * non-file rows up to that version instead of a second job over the same commits (time travel by
    * timestamp loads the latest snapshot first). A [[load]] when `segment` is not such a prefix.
    */
  def loadBefore(
      spark: SparkSession,
      listing: LogListing,
      segment: LogSegment,
      later: StateRows
  ): Snapshot = {
    val old = later.segment
    val prefix = segment.checkpoint == old.checkpoint && segment.version < old.version &&
      old.deltas.startsWith(segment.deltas)
    if (!prefix) return build(spark, listing, segment, None, None, None)._1
    later.tail match {
      case Some(t) =>
        val files = segment.deltas.map(_.file.path).toSet
        val rows = t.rows.filter(r => files(r.getAs[String]("file")))
        build(spark, listing, segment, None, None, Some(new DriverTail(rows, segment.deltas)))._1
      case None =>
        val known = later.rows.filter(_.getAs[Long]("version") <= segment.version)
        build(spark, listing, segment, None, Some(known), None)._1
    }
  }

  /** The snapshot at `segment` (see [[load]]), the non-file rows a job collected for it, and its
    * tail; with `keepFiles` as [[loadKeepingRows]]. With `known`, the rows of `segment`'s non-file
    * state already collected, used where a job would collect them; with `knownTail`, its tail
    * already read (see [[loadBefore]]).
    */
  private def build(
      spark: SparkSession,
      listing: LogListing,
      segment: LogSegment,
      previous: Option[Snapshot],
      known: Option[Seq[Row]],
      knownTail: Option[DriverTail],
      keepFiles: Boolean = false
  ): (Snapshot, Option[Seq[Row]], Tail) = {
    val table = segment.table
    val extended = previous.filter(p => extendsSnapshot(segment, p))
    val (tail, tailFiles) = knownTail match {
      case Some(t) => (t, FileState.tailFiles(t, table.root))
      case None    => Tail.readOnto(spark, segment, carried(spark, segment, extended))
    }
    // A small checkpoint under a small tail is read on the driver: no Spark job for the state.
    val onDriver = tail match {
      case _: DriverTail => DriverCheckpoint.of(spark, segment, keepFiles)
      case _             => None
    }
    val overlay = tailFiles match {
      case DriverTailFiles(o) => o
      case _                  => FileOverlay.empty
    }
    var collected: Option[Seq[Row]] = None
    var tallied = false // the checkpoint's files were counted as its state was read
    val state = (tail, extended) match {
      case (t: DriverTail, Some(p)) =>
        val newRows = t.rows.filter(_.getLong(0) > p.version)
        val initial = p.state.copy(inCommitTimestamp = None)
        StateReads.collectState(spark, segment, None, new DriverTail(newRows, t.deltas), initial)
      case _ =>
        onDriver.flatMap(_.nonFileRows(overlay)) match {
          case Some(rows) =>
            tallied = true
            StateReads.collectState(spark, segment, None, tail, NonFileState.empty, rows)
          case None =>
            def checkpoint = ReadErrors.translate(segment)(
              segment.checkpoint.map(
                LogActions.checkpoint(spark, table, _, ActionSchemas.checkpointNonFileRow)
              )
            )
            tail match {
              case t: DistributedTail =>
                val rows = known.getOrElse(StateReads.collectRows(spark, segment, checkpoint, t))
                collected = Some(rows)
                StateReads.reconciled(segment, rows, NonFileState.empty)
              case _ =>
                // a large checkpoint's few rows of state, read on the driver when its footers
                // show where they are; else by a job
                SparseCheckpointState.sparseNonFileRows(spark, segment) match {
                  case Some(rows) =>
                    StateReads.collectState(spark, segment, None, tail, NonFileState.empty, rows)
                  case None =>
                    StateReads.collectState(spark, segment, checkpoint, tail, NonFileState.empty)
                }
            }
        }
    }
    // The checkpoint as the driver read it: this load's, or the one `previous` (on the same
    // checkpoint, whose state this one carries on) read, so that a snapshot updated after a
    // commit keeps its file actions on the driver (a commit's checkpoint is then written there).
    val reader: Option[DriverCheckpoint] =
      if (tallied) onDriver
      else if (tail.isInstanceOf[DriverTail])
        extended.flatMap(_.driverFileActions).flatMap(_.reader)
      else None
    // the file list: the driver's overlay while it is small enough to plan, else its winners'
    // lines read again by tasks
    val unplanned = tail match {
      case _: DriverTail =>
        segment.deltas.map(_.file.size).sum > LogLineReader.maxPlannedTailBytes(spark)
      case _ => false
    }
    lazy val listedTail: TailFiles = tail match {
      case _: DriverTail if unplanned =>
        val files = segment.deltas.map(d => d.version -> d.file)
        val lines = LogLineReader.read(spark, table, files, true, true, Some(overlay.lines))
        ListedTailFiles(overlay, lines)
      case _ => tailFiles
    }
    def base(lean: Boolean) = FileState.checkpointBase(spark, segment, state.sidecars, lean)
    def files(lean: Boolean) = FileState.onto(spark, segment, base(lean), listedTail, lean)
    val counter: Long => FileCounts = tailFiles match {
      case DriverTailFiles(overlay) =>
        cutoff =>
          reader.flatMap(_.counts(state.sidecars, overlay, cutoff)) match {
            case Some(checkpoint) => checkpoint + overlay.counts(cutoff)
            case None =>
              val counted = base(lean = true).map(FileCounts.counting)
              FileState.count(spark, counted, overlay, cutoff, countJob(segment))
          }
      case _: DistributedTailFiles => aggregated(spark, segment, files)
    }
    val typed = new TypedStatsSource(
      CheckpointStatsColumns
        .of(spark, segment, state.sidecars.map(FileState.sidecarPath(segment, _))),
      read => {
        val b = FileState.checkpointBase(spark, segment, state.sidecars, lean = false, Some(read))
        FileState.onto(spark, segment, b, listedTail, lean = false)
      }
    )
    val onDriverOnly = tail.isInstanceOf[DriverTail] &&
      (segment.checkpoint.isEmpty || (tallied && state.sidecars.isEmpty))
    // a small log read on the driver: its file list is built there (DriverFileList)
    val local: () => Option[DataFrame] = (segment.checkpoint, tailFiles) match {
      case (None, DriverTailFiles(o)) if !unplanned =>
        () => DriverFileList.of(spark, state.metadata.get, o)
      case (Some(_), DriverTailFiles(o)) if !unplanned && reader.isDefined =>
        val checkpoint = reader.map(_ -> state.sidecars)
        () =>
          DriverFileList.of(
            spark,
            state.metadata.get,
            o,
            checkpoint,
            typed.layout.exists(_.restoresJson)
          )
      case _ => () => None
    }
    // the reconciled actions the driver can stream: a checkpoint it read, and the tail it holds
    val actions = tailFiles match {
      case DriverTailFiles(o) if segment.checkpoint.isEmpty => Some(new DriverFileActions(None, o))
      case DriverTailFiles(o) =>
        val typedOnly = () => typed.layout.exists(_.restoresJson)
        reader.map(cp => new DriverFileActions(Some(cp -> state.sidecars), o, typedOnly))
      case _ => None
    }
    val built = snapshot(
      spark,
      listing,
      segment,
      state,
      files,
      counter,
      None,
      Some(typed),
      onDriverOnly,
      local,
      actions
    )
    (built, collected, tail)
  }

  /** What `extended` (an earlier snapshot `segment` adds commits to) reconciled of its tail on the
    * driver: its commits' count and their overlay, carried on by [[Tail.readOnto]] while the whole
    * tail stays within the driver's budget.
    */
  private def carried(
      spark: SparkSession,
      segment: LogSegment,
      extended: Option[Snapshot]
  ): Option[(Int, FileOverlay)] = for {
    p <- extended
    actions <- p.driverFileActions
    if LogLineReader.readsOnDriver(spark, segment.deltas.map(_.file.size).sum)
  } yield p.segment.deltas.length -> actions.overlay

  /** The same version of the same table, from a new listing (a checkpoint or sidecar `segment`
    * relies on vanished after it was listed).
    */
  def reload(spark: SparkSession, segment: LogSegment): Snapshot = {
    val listing = LogListing.fromHint(segment.table, segment.version)
    val (listed, again) = LogSegment.resolve(listing, Some(segment.version))
    load(spark, listed, again)
  }

  /** The snapshot at `segment`, built on `previous` when `segment` only adds commits after it and
    * `previous` is cached or was itself built this way: its non-file state is carried over and the
    * new commits are reconciled onto the cached files. While those commits are few they are
    * reconciled on the driver and the cached files are used as they are (the new snapshot shares
    * them); otherwise the new files are cached. Anything else is a full [[load]].
    */
  def update(
      spark: SparkSession,
      listing: LogListing,
      segment: LogSegment,
      previous: Snapshot
  ): Snapshot = {
    val old = previous.segment
    val root = previous.cachedRoot
    if (!extendsSnapshot(segment, previous) || root.isEmpty) {
      return load(spark, listing, segment, Some(previous))
    }

    val newDeltas = segment.deltas.drop(old.deltas.length)
    val newTail = Tail.read(spark, segment.table, newDeltas)
    val state =
      StateReads.collectState(
        spark,
        segment,
        None,
        newTail,
        previous.state.copy(inCommitTimestamp = None)
      )
    val newFiles = FileState.tailFiles(newTail, segment.table.root)
    val combined = (newFiles, previous.cachedBase) match {
      case (DriverTailFiles(f), Some(o)) if !previous.isCached => Some(o.overlay ++ f)
      case (DriverTailFiles(f), _)                             => Some(f)
      case _                                                   => None
    }
    val maxOverlay = TxlogConf.UpdateMaxOverlayActions.get(spark)
    val maxBytes = DriverBudgets.maxOverlayBytes(spark)
    combined.filter(o => o.size <= maxOverlay && o.bytes <= maxBytes) match {
      case Some(overlay) =>
        val cached = root.get
        val counter: Long => FileCounts = cutoff => {
          val job = countJob(segment)
          cached.fileIndex match {
            case Some(index) => index.counts(spark, overlay, cutoff, job)
            case None => FileState.count(spark, Some(cached.countingFiles), overlay, cutoff, job)
          }
        }
        def files(lean: Boolean) =
          onto(spark, segment, cached.reconciledFiles, DriverTailFiles(overlay), lean)
        snapshot(
          spark,
          listing,
          segment,
          state,
          files,
          counter,
          Some(CachedBase(cached, overlay))
        )
      case None =>
        def files(lean: Boolean) = onto(spark, segment, previous.reconciledFiles, newFiles, lean)
        snapshot(spark, listing, segment, state, files, aggregated(spark, segment, files))
          .cacheFiles()
    }
  }

  /** Whether `segment` is `previous`'s plus later commits, on the same checkpoint. */
  private def extendsSnapshot(segment: LogSegment, previous: Snapshot): Boolean = {
    val old = previous.segment
    segment.checkpoint == old.checkpoint && segment.version > old.version &&
    segment.deltas.startsWith(old.deltas)
  }

  private def snapshot(
      spark: SparkSession,
      listing: LogListing,
      segment: LogSegment,
      state: NonFileState,
      files: Boolean => DataFrame,
      counter: Long => FileCounts,
      cachedBase: Option[CachedBase] = None,
      typedStats: Option[TypedStatsSource] = None,
      countsOnDriver: Boolean = false,
      localFiles: () => Option[DataFrame] = () => None,
      driverFileActions: Option[DriverFileActions] = None
  ): Snapshot = new Snapshot(
    spark,
    segment,
    state,
    timestamp(listing, segment, state),
    files(false),
    files(true),
    counter,
    cachedBase,
    typedStats,
    countsOnDriver,
    localFiles,
    driverFileActions
  )

  /** `tail` reconciled onto `base`, a full file state, narrowed first for the lean shape. */
  private def onto(
      spark: SparkSession,
      segment: LogSegment,
      base: DataFrame,
      tail: TailFiles,
      lean: Boolean
  ): DataFrame =
    FileState.onto(spark, segment, Some(if (lean) FileState.narrow(base) else base), tail, lean)

  /** Counts by one aggregation over the lean file state. */
  private def aggregated(
      spark: SparkSession,
      segment: LogSegment,
      files: Boolean => DataFrame
  ): Long => FileCounts =
    cutoff =>
      FileCounts.aggregate(spark, FileCounts.counting(files(true)), cutoff, countJob(segment))

  private def countJob(segment: LogSegment): String =
    s"count files of ${segment.table.root} v${segment.version}"

  /** The version's commit timestamp, by the rules of [[CommitTimeline]] under the version's own
    * protocol and metadata; the in-commit timestamp the replay already read is used as is.
    */
  private def timestamp(listing: LogListing, segment: LogSegment, state: NonFileState): Long =
    CommitTimeline(listing, state.protocol.get, state.metadata.get)
      .timestampOf(segment.version, state.inCommitTimestamp)
}
