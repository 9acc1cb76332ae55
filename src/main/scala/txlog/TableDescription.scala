package txlog

import java.sql.Timestamp

import scala.jdk.CollectionConverters._

/** What `DeltaLog.describe()` reports: the fields of delta-spark's `DESCRIBE DETAIL` under their
  * names there, plus the health of the log ([[LogHealth]]) and how its storage publishes log files
  * ([[LogPublishing]]: whether racing writers are safe there).
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
  * if (!d.publishing.concurrentWriters) println(d.publishing.method)
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
    health: LogHealth,
    publishing: LogPublishing
) extends Summarized {

  /** Every field in snake_case, `health` as a nested object. Example:
    * `log.describe().summaryFields.toMap("num_files")`.
    */
  def summaryFields: Seq[(String, Any)] = Seq(
    "format" -> format,
    "id" -> id,
    "name" -> name.orNull,
    "description" -> description.orNull,
    "location" -> location,
    "created_at" -> Summarized.orNull(createdAt.map(_.getTime)),
    "last_modified" -> lastModified.getTime,
    "partition_columns" -> partitionColumns.asJava,
    "num_files" -> numFiles,
    "size_in_bytes" -> sizeInBytes,
    "properties" -> properties.asJava,
    "min_reader_version" -> minReaderVersion,
    "min_writer_version" -> minWriterVersion,
    "table_features" -> tableFeatures.asJava,
    "version" -> version,
    "health" -> Summarized.javaMap(health.summaryFields),
    "publishing" -> Summarized.javaMap(publishing.summaryFields)
  )
}

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
) extends Summarized {

  /** Every field in snake_case. Example: `log.describe().health.toJson`. */
  def summaryFields: Seq[(String, Any)] = Seq(
    "checkpoint_version" -> Summarized.orNull(checkpointVersion),
    "checkpoint_kind" -> checkpointKind.orNull,
    "checkpoint_age_millis" -> Summarized.orNull(checkpointAgeMillis),
    "commits_since_checkpoint" -> commitsSinceCheckpoint,
    "log_files" -> logFiles,
    "log_bytes" -> logBytes,
    "last_checkpoint_version" -> Summarized.orNull(lastCheckpointVersion),
    "latest_checksum_version" -> Summarized.orNull(latestChecksumVersion),
    "checksum_current" -> checksumCurrent
  )
}
