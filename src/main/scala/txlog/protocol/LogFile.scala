package txlog.protocol

import org.apache.hadoop.fs.{FileStatus, Path}

/** A file in `_delta_log` as the listing saw it: where, how big, when last modified. */
private[txlog] final case class FileInfo(path: String, size: Long, modificationTime: Long) {

  /** The file's status as the listing saw it, for readers that would otherwise look it up. */
  def status: FileStatus = new FileStatus(size, false, 0, 0, modificationTime, new Path(path))
}

private[txlog] object FileInfo {
  def apply(status: FileStatus): FileInfo =
    FileInfo(status.getPath.toString, status.getLen, status.getModificationTime)
}

/** A `_delta_log` file whose name the spec defines ("Delta Log Entries", "Checkpoints", ...). */
private[txlog] sealed trait LogFile {
  def file: FileInfo

  /** The version the file belongs to; for a log compaction, its end version. */
  def version: Long
}

/** `n.json`: the actions of commit n. */
private[txlog] final case class CommitFile(version: Long, file: FileInfo) extends LogFile

/** `x.y.compacted.json`: the reconciled actions of commits x to y ("Log Compaction Files"). */
private[txlog] final case class CompactionFile(start: Long, version: Long, file: FileInfo)
    extends LogFile

/** `n.crc`: the version checksum of version n ("Version Checksum File"). */
private[txlog] final case class VersionChecksumFile(version: Long, file: FileInfo) extends LogFile

/** One file of a checkpoint of version n, in one of the three naming schemes. */
private[txlog] final case class CheckpointFile(
    version: Long,
    naming: CheckpointNaming,
    file: FileInfo
) extends LogFile

/** The spec's "Checkpoint Naming Scheme". */
private[txlog] sealed trait CheckpointNaming
private[txlog] object CheckpointNaming {

  /** `n.checkpoint.parquet`: V1 spec, or V2 spec on tables with v2Checkpoint. */
  case object Classic extends CheckpointNaming

  /** `n.checkpoint.o.p.parquet`: part o of p, always V1 spec. */
  final case class MultiPart(part: Int, parts: Int) extends CheckpointNaming

  /** `n.checkpoint.u.{json,parquet}`: a V2 spec checkpoint named by a UUID. */
  final case class Uuid(uuid: String, format: String) extends CheckpointNaming
}
