package txlog.log

import java.io.FileNotFoundException

import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.TxlogErrors

/** One listing of `_delta_log`, sorted and grouped by the spec's file kinds. Only complete
  * checkpoints are kept: a multi-part checkpoint with a missing part is ignored, as the spec's
  * "Checkpoints" section requires.
  */
private[txlog] final case class LogListing(
    table: TablePath,
    commits: IndexedSeq[CommitFile],
    checkpoints: IndexedSeq[CheckpointInstance],
    compactions: IndexedSeq[CompactionFile],
    checksums: Map[Long, VersionChecksumFile],
    lastCheckpoint: Option[LastCheckpoint]
) {

  /** The newest version the log knows of: its newest commit or checkpoint. */
  def latestVersion: Long =
    (commits.lastOption.map(_.version) ++ checkpoints.lastOption.map(_.version)).max

  /** The oldest version that can be reconstructed: commit 0, or the oldest checkpoint. */
  def earliestVersion: Long =
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

  /** Lists `_delta_log` of a table. Raises DELTA_TABLE_NOT_FOUND when it does not exist or holds
    * neither commits nor checkpoints.
    */
  def list(table: TablePath): LogListing = {
    val fs = table.fs
    val statuses =
      try fs.listStatus(table.logDir)
      catch { case _: FileNotFoundException => throw TxlogErrors.tableNotFound(table.root) }
    val parsed =
      statuses.iterator.filter(_.isFile).flatMap(s => FileNames.parse(FileInfo(s))).toIndexedSeq
    val commits = parsed.collect { case c: CommitFile => c }.sortBy(_.version)
    val checkpoints = completeCheckpoints(parsed.collect { case c: CheckpointFile => c })
    if (commits.isEmpty && checkpoints.isEmpty) throw TxlogErrors.tableNotFound(table.root)
    LogListing(
      table,
      commits,
      checkpoints,
      parsed.collect { case c: CompactionFile => c }.sortBy(c => (c.start, c.version)),
      parsed.collect { case c: VersionChecksumFile => c.version -> c }.toMap,
      LastCheckpoint.read(fs, table.logDir)
    )
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
