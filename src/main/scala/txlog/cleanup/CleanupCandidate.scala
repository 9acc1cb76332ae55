package txlog.cleanup

import org.apache.spark.sql.types._

/** One file metadata cleanup would delete. `version` is the file's version; for a log compaction
  * its start version (the one the spec's rule compares), for a sidecar or a leftover -1.
  */
private[txlog] final case class CleanupCandidate(
    path: String,
    kind: String,
    version: Long,
    sizeInBytes: Long,
    modificationTime: Long
)

private[txlog] object CleanupCandidate {
  val Commit = "commit"
  val Checkpoint = "checkpoint"
  val Checksum = "checksum"
  val Compaction = "compaction"
  val Sidecar = "sidecar"

  /** A temporary file or staging directory a writer left behind when it died. */
  val Leftover = "leftover"

  /** The kind of the one row explaining why nothing can be deleted. */
  val Nothing = "none"

  /** Columns of the result of `DeltaLog.cleanup`. */
  val schema: StructType = new StructType()
    .add("path", StringType)
    .add("kind", StringType, nullable = false)
    .add("version", LongType)
    .add("sizeInBytes", LongType)
    .add("modificationTime", LongType)
    .add("deleted", BooleanType, nullable = false)
    .add("reason", StringType)
}
