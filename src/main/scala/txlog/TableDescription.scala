package txlog

import java.sql.Timestamp

/** What `DeltaLog.describe()` reports: the fields of delta-spark's `DESCRIBE DETAIL` under their
  * names there, plus the health of the log ([[LogHealth]]).
  *
  * `lastModified` is the modification time of the latest commit file, as DESCRIBE DETAIL reports it
  * (not the in-commit timestamp); `properties` is the metadata's configuration as written (no
  * defaults); `tableFeatures` lists the features the protocol supports, named or implied by its
  * legacy versions, sorted.
  *
  * {{{
  * val d = DeltaLog.forTable(spark, "/data/events").describe()
  * println(s"${d.location}: ${d.numFiles} files, ${d.sizeInBytes} bytes, v${d.version}")
  * if (d.health.commitsSinceCheckpoint > 100) log.checkpoint()
  * }}}
  */
final case class TableDescription(
    format: String,
    id: String,
    name: Option[String],
    description: Option[String],
    location: String,
    createdAt: Option[Timestamp],
    lastModified: Timestamp,
    partitionColumns: Seq[String],
    numFiles: Long,
    sizeInBytes: Long,
    properties: Map[String, String],
    minReaderVersion: Int,
    minWriterVersion: Int,
    tableFeatures: Seq[String],
    version: Long,
    health: LogHealth
)

/** The state of a table's `_delta_log`, as `DeltaLog.describe()` finds it.
  *
  * @param checkpointVersion
  *   the version of the newest complete checkpoint, if any
  * @param checkpointKind
  *   its kind: `classic`, `multipart` or `v2` (UUID-named)
  * @param checkpointAgeMillis
  *   how long ago its (last) file was written, in milliseconds
  * @param commitsSinceCheckpoint
  *   commits after it (all commits when there is none)
  * @param logFiles
  *   log files the spec names directly under `_delta_log`: commits, checkpoint files, log
  *   compactions, version checksums and `_last_checkpoint` (sidecars are not counted)
  * @param logBytes
  *   their total size
  * @param lastCheckpointVersion
  *   the version `_last_checkpoint` names, when the file is present and valid
  * @param latestChecksumVersion
  *   the newest version with a `.crc` file
  * @param checksumCurrent
  *   whether the latest version has a `.crc` file
  *
  * {{{
  * val h = log.describe().health
  * if (!h.checksumCurrent) log.writeChecksum()
  * }}}
  */
final case class LogHealth(
    checkpointVersion: Option[Long],
    checkpointKind: Option[String],
    checkpointAgeMillis: Option[Long],
    commitsSinceCheckpoint: Long,
    logFiles: Long,
    logBytes: Long,
    lastCheckpointVersion: Option[Long],
    latestChecksumVersion: Option[Long],
    checksumCurrent: Boolean
)
