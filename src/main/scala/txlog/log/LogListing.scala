package txlog.log

import java.io.{FileNotFoundException, IOException, InterruptedIOException}

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.FileStatus

import txlog.errors.TxlogErrors
import txlog.protocol.FileNames
import txlog.protocol.CommitFile
import txlog.protocol.CheckpointFile
import txlog.protocol.CheckpointNaming
import txlog.protocol.CompactionFile
import txlog.protocol.FileInfo
import txlog.protocol.VersionChecksumFile
import txlog.storage.S3ListAfter

/** One listing of `_delta_log`, sorted and grouped by the spec's file kinds. Only complete
  * checkpoints are kept: a multi-part checkpoint with a missing part is ignored, as the spec's
  * "Checkpoints" section requires.
  *
  * A listing is '''complete''' (every file) or '''partial''': only the files of versions from
  * `listedFrom` on (names are filtered as the listing streams in, before anything is built), as
  * when listing from the checkpoint `_last_checkpoint` names.
  *
  * @param listedFrom
  *   the lowest version whose files were listed; 0 for a complete listing
  */
private[txlog] final case class LogListing(
    table: TablePath,
    commits: IndexedSeq[CommitFile],
    checkpoints: IndexedSeq[CheckpointInstance],
    compactions: IndexedSeq[CompactionFile],
    checksums: Map[Long, VersionChecksumFile],
    lastCheckpoint: Option[LastCheckpoint],
    listedFrom: Long = 0L
) {

  /** Whether every file of the log was listed. */
  def isComplete: Boolean = listedFrom == 0L

  /** The newest version the log knows of: its newest commit or checkpoint. */
  def latestVersion: Long =
    (commits.lastOption.map(_.version) ++ checkpoints.lastOption.map(_.version)).max

  /** The oldest version that can be reconstructed: commit 0, or the oldest checkpoint. None for a
    * partial listing, which cannot know it (older files were not listed).
    */
  def earliestVersion: Option[Long] = if (isComplete) Some(earliestListed) else None

  /** The oldest version the listed files reconstruct: the [[earliestVersion]] of a complete
    * listing; of a partial one, a version at or after [[listedFrom]].
    */
  def earliestListed: Long =
    if (commits.headOption.exists(_.version == 0)) 0L
    else checkpoints.headOption.map(_.version).getOrElse(commits.head.version)

  /** The commit file of `version`, if listed. */
  def commit(version: Long): Option[CommitFile] = {
    val i = java.util.Arrays.binarySearch(commits.map(_.version).toArray, version)
    if (i >= 0) Some(commits(i)) else None
  }
}

/** A checkpoint of one version: its one file, or all parts of a multi-part checkpoint. */
private[txlog] final case class CheckpointInstance(version: Long, files: Seq[CheckpointFile]) {
  def naming: CheckpointNaming = files.head.naming
  def sizeInBytes: Long = files.map(_.file.size).sum
  def isJson: Boolean = naming match {
    case CheckpointNaming.Uuid(_, "json") => true
    case _                                => false
  }
  def parts: Option[Int] = naming match {
    case CheckpointNaming.MultiPart(_, p) => Some(p)
    case _                                => None
  }

  /** Among checkpoints of one version: V2 UUID-named first, then classic, then multi-part. */
  def preference: Int = naming match {
    case CheckpointNaming.Uuid(_, "parquet") => 0
    case CheckpointNaming.Uuid(_, _)         => 1
    case CheckpointNaming.Classic            => 2
    case _: CheckpointNaming.MultiPart       => 3
  }
}

private[txlog] object LogListing {

  /** Lists all of `_delta_log` of a table. Raises DELTA_TABLE_NOT_FOUND when it does not exist or
    * holds neither commits nor checkpoints, LOG_READ_FAILED when it cannot be listed.
    */
  def list(table: TablePath): LogListing =
    nonEmpty(listFrom(table, 0L, LastCheckpoint.read(table.fs, table.logDir)))

  /** Lists the files of versions from the checkpoint `_last_checkpoint` names on (a partial
    * listing) when that checkpoint is at or below `atOrBelow` and is listed complete; otherwise all
    * of `_delta_log`. A hint that leads to a gap is caught by the caller, which then lists all.
    */
  def fromHint(table: TablePath, atOrBelow: Long = Long.MaxValue): LogListing = {
    // `_last_checkpoint` is read once: a full listing falls back on what it said
    val read = LastCheckpoint.read(table.fs, table.logDir)
    def all = nonEmpty(listFrom(table, 0L, read))
    read match {
      case Some(hint) if hint.version > 0 && hint.version <= atOrBelow =>
        val partial = listFrom(table, hint.version, Some(hint))
        if (partial.checkpoints.exists(_.version == hint.version)) partial else all
      case _ => all
    }
  }

  /** `previous` with the files of versions after `version` listed now: only those are listed.
    * `_last_checkpoint` is not read again (the newest listed checkpoint wins over it anyway).
    */
  def after(previous: LogListing, version: Long): LogListing = {
    val newer = listFrom(previous.table, version + 1, previous.lastCheckpoint)
    LogListing(
      previous.table,
      previous.commits.filter(_.version <= version) ++ newer.commits,
      previous.checkpoints.filter(_.version <= version) ++ newer.checkpoints,
      previous.compactions.filter(_.start <= version) ++ newer.compactions,
      previous.checksums.filter(_._1 <= version) ++ newer.checksums,
      previous.lastCheckpoint,
      previous.listedFrom
    )
  }

  /** The files of versions `version` and later only (a stream reading the commits after its
    * offset): one listing from that version's name on, possibly of no file.
    */
  def from(table: TablePath, version: Long): LogListing = listFrom(table, version, None)

  private def nonEmpty(listing: LogListing): LogListing = {
    if (listing.commits.isEmpty && listing.checkpoints.isEmpty) {
      throw TxlogErrors.tableNotFound(listing.table.root)
    }
    listing
  }

  /** The listing of the files of versions `from` and later. */
  private def listFrom(table: TablePath, from: Long, hint: Option[LastCheckpoint]): LogListing = {
    val parsed = statuses(table, from).flatMap(s => FileNames.parse(FileInfo(s)))
    LogListing(
      table,
      parsed.collect { case c: CommitFile => c }.sortBy(_.version),
      completeCheckpoints(parsed.collect { case c: CheckpointFile => c }),
      parsed.collect { case c: CompactionFile => c }.sortBy(c => (c.start, c.version)),
      parsed.collect { case c: VersionChecksumFile => c.version -> c }.toMap,
      hint,
      from
    )
  }

  /** The files of `_delta_log` whose name starts with a version of at least `from` (all files when
    * `from` is 0), kept by name as the listing streams in. Names start with zero-padded versions,
    * so they compare as the versions do.
    *
    * On S3A ([[S3ListAfter]]) a listing from a version starts after that version's name, so a log
    * of millions of objects costs only the pages after it. Hadoop's FileSystem API has no such call
    * (HDFS's `startAfter` is internal to its client), and S3A pages from the prefix's first key:
    * elsewhere all of `_delta_log` is listed and earlier names dropped here, as they are after a
    * start-after listing too (a store may ignore `StartAfter`). On Hadoop's local file system
    * ([[LocalLogDir]]) only the wanted names are stat'ed.
    */
  private def statuses(table: TablePath, from: Long): IndexedSeq[FileStatus] = {
    val first = FileNames.padded(from)
    def wanted(name: String): Boolean =
      from == 0L || (name.length > 20 && name.substring(0, 20).compareTo(first) >= 0)
    val out = ArrayBuffer.empty[FileStatus]
    def keep(s: FileStatus): Unit = if (wanted(s.getPath.getName) && s.isFile) out += s
    try {
      (if (from > 0L) S3ListAfter.of(table.fs) else None) match {
        case Some(lister) => lister.foreachAfter(table.logDir, first)(keep)
        case None =>
          LocalLogDir.lister(table.fs) match {
            case Some(local) => local.foreach(table.logDir, wanted)(keep)
            case None =>
              val it = table.fs.listStatusIterator(table.logDir)
              while (it.hasNext) keep(it.next())
          }
      }
    } catch {
      case _: FileNotFoundException  => throw TxlogErrors.tableNotFound(table.root)
      case e: InterruptedIOException => throw e
      case e: IOException            => throw TxlogErrors.logListingFailed(table.logDir.toString, e)
    }
    out.toIndexedSeq
  }

  /** Groups checkpoint files into instances and drops incomplete multi-part checkpoints. */
  private def completeCheckpoints(files: Seq[CheckpointFile]): IndexedSeq[CheckpointInstance] = {
    val instances = files
      .groupBy(f =>
        (
          f.version,
          f.naming match {
            case CheckpointNaming.MultiPart(_, p) => s"multi-$p"
            case CheckpointNaming.Uuid(u, fmt)    => s"uuid-$u.$fmt"
            case CheckpointNaming.Classic         => "classic"
          }
        )
      )
      .toSeq
      .flatMap { case ((v, _), group) =>
        group.head.naming match {
          case CheckpointNaming.MultiPart(_, p) =>
            val parts = group.map(_.naming.asInstanceOf[CheckpointNaming.MultiPart].part).toSet
            if (parts == (1 to p).toSet) {
              Some(
                CheckpointInstance(
                  v,
                  group.sortBy(_.naming.asInstanceOf[CheckpointNaming.MultiPart].part)
                )
              )
            } else None
          case _ => Some(CheckpointInstance(v, group.take(1)))
        }
      }
    instances.sortBy(c => (c.version, -c.preference)).toIndexedSeq
  }
}
