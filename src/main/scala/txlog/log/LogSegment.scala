package txlog.log

import txlog.TxlogException
import txlog.errors.TxlogErrors
import txlog.protocol.CommitFile
import txlog.protocol.CompactionFile
import txlog.protocol.LogFile

/** The files that make up one version of a table: the newest complete checkpoint at or below it,
  * then the contiguous commits after the checkpoint up to the version, where log compaction files
  * stand in for the commits they cover whenever that reads fewer files.
  *
  * @param deltas
  *   commits and compactions after the checkpoint, in version order
  */
private[txlog] final case class LogSegment(
    table: TablePath,
    version: Long,
    checkpoint: Option[CheckpointInstance],
    deltas: IndexedSeq[LogFile]
) {

  def checkpointVersion: Long = checkpoint.map(_.version).getOrElse(-1L)

  /** Bytes of the commit and compaction files that follow the checkpoint. */
  def tailBytes: Long = deltas.map(_.file.size).sum
}

private[txlog] object LogSegment {

  /** Errors a partial listing may raise only because it is partial (or its hint was wrong). */
  private val ConfirmOnFullListing =
    Set("VERSION_NOT_FOUND", "MISSING_LOG_FILES", "LOG_VERSION_GAP")

  /** The segment for `target` and the listing it was built from: `listing` when it can build it,
    * else a complete listing. A partial listing (see [[LogListing]]) that cannot build it (the
    * target is before it, or `_last_checkpoint` led to a gap) is never trusted for an error.
    */
  def resolve(listing: LogListing, target: Option[Long]): (LogListing, LogSegment) =
    if (listing.isComplete) (listing, build(listing, target))
    else {
      try { (listing, build(listing, target)) }
      catch {
        case e: TxlogException if ConfirmOnFullListing(e.errorClass) =>
          val full = LogListing.list(listing.table)
          (full, build(full, target))
      }
    }

  /** The segment for `target` (the latest version when None). A `_last_checkpoint` hint that names
    * a complete checkpoint at or below the target is preferred; any other hint is ignored. Errors
    * from a partial listing are only provisional: see [[resolve]].
    */
  def build(listing: LogListing, target: Option[Long]): LogSegment = {
    val table = listing.table.root
    val latest = listing.latestVersion
    val earliest = listing.earliestVersion.getOrElse(listing.listedFrom)
    val version = target.getOrElse(latest)
    if (version < earliest || version > latest) {
      throw TxlogErrors.versionNotFound(table, version, earliest, latest)
    }
    val usable = listing.checkpoints.filter(_.version <= version)
    val hinted = listing.lastCheckpoint.flatMap { hint =>
      usable
        .filter(c => c.version == hint.version && hint.parts == c.parts)
        .sortBy(_.preference)
        .headOption
    }
    val newest = usable.lastOption.map(_.version)
    val checkpoint = hinted
      .filter(h => newest.contains(h.version))
      .orElse(usable.filter(c => newest.contains(c.version)).sortBy(_.preference).headOption)

    val start = checkpoint.map(_.version + 1).getOrElse(0L)
    val commits = listing.commits.filter(c => c.version >= start && c.version <= version)
    checkContiguous(table, start, version, commits, checkpoint.isDefined)
    LogSegment(listing.table, version, checkpoint, withCompactions(commits, listing.compactions))
  }

  private def checkContiguous(
      table: String,
      start: Long,
      version: Long,
      commits: IndexedSeq[CommitFile],
      hasCheckpoint: Boolean
  ): Unit = {
    if (version < start) return
    commits.headOption match {
      case None => throw TxlogErrors.missingLogFiles(table, version + 1, version)
      case Some(first) if first.version != start =>
        if (hasCheckpoint) throw TxlogErrors.versionGap(table, start - 1, first.version)
        else throw TxlogErrors.missingLogFiles(table, first.version, version)
      case _ =>
    }
    var i = 1
    while (i < commits.length) {
      val (a, b) = (commits(i - 1).version, commits(i).version)
      if (b != a + 1) throw TxlogErrors.versionGap(table, a, b)
      i += 1
    }
    if (commits.last.version != version) {
      throw TxlogErrors.versionGap(table, commits.last.version, version + 1)
    }
  }

  /** Replaces runs of commits by log compaction files, greedily taking at each version the
    * compaction that starts there and reaches furthest without passing the segment's end.
    */
  private def withCompactions(
      commits: IndexedSeq[CommitFile],
      compactions: IndexedSeq[CompactionFile]
  ): IndexedSeq[LogFile] = {
    if (commits.isEmpty || compactions.isEmpty) return commits
    val end = commits.last.version
    val byStart = compactions
      .filter(c => c.version <= end && c.version > c.start)
      .groupBy(_.start)
      .map { case (s, cs) => s -> cs.maxBy(_.version) }
    val out = IndexedSeq.newBuilder[LogFile]
    var i = 0
    while (i < commits.length) {
      byStart.get(commits(i).version) match {
        case Some(c) =>
          out += c
          i += (c.version - c.start + 1).toInt
        case None =>
          out += commits(i)
          i += 1
      }
    }
    out.result()
  }
}
