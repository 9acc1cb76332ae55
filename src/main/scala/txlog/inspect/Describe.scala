package txlog.inspect

import java.sql.Timestamp

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession

import txlog.{LogHealth, Snapshot, TableDescription}
import txlog.log.{CheckpointInstance, LogListing}
import txlog.protocol.CheckpointNaming
import txlog.protocol.FileNames
import txlog.protocol.TableFeatures
import txlog.storage.LogStores
import txlog.util.Jobs

/** Builds [[TableDescription]]: DESCRIBE DETAIL's fields from a snapshot (one counting job) and the
  * log's health from the complete listing it came from (no job).
  */
private[txlog] object Describe {

  def of(
      spark: SparkSession,
      listing: LogListing,
      snapshot: Snapshot,
      now: Long
  ): TableDescription = {
    val p = snapshot.protocol
    val m = snapshot.metadata
    val (numFiles, bytes) = Jobs.named(spark, s"describe ${snapshot.tablePath}") {
      (snapshot.numFiles, snapshot.sizeInBytes)
    }
    TableDescription(
      format = "delta",
      id = m.id,
      name = m.name,
      description = m.description,
      location = snapshot.tablePath,
      createdAt = m.createdTime.map(new Timestamp(_)),
      lastModified = new Timestamp(lastModified(listing, snapshot)),
      partitionColumns = m.partitionColumns,
      numFiles = numFiles,
      sizeInBytes = bytes,
      properties = m.configuration,
      minReaderVersion = p.minReaderVersion,
      minWriterVersion = p.minWriterVersion,
      tableFeatures = TableFeatures.supported(p).toSeq.sorted,
      version = snapshot.version,
      health = health(listing, snapshot.version, now),
      publishing = LogStores
        .forPath(listing.table.fs, listing.table.logDir)
        .publishing(listing.table.logDir)
    )
  }

  /** The latest commit file's modification time, as DESCRIBE DETAIL reports it; the snapshot's
    * timestamp when that commit was cleaned up (only a checkpoint is left).
    */
  private def lastModified(listing: LogListing, snapshot: Snapshot): Long =
    listing.commit(snapshot.version).map(_.file.modificationTime).getOrElse(snapshot.timestamp)

  def health(listing: LogListing, version: Long, now: Long): LogHealth = {
    val cp = listing.checkpoints.filter(_.version <= version).lastOption
    val files = listing.commits.map(_.file) ++ listing.checkpoints.flatMap(_.files.map(_.file)) ++
      listing.compactions.map(_.file) ++ listing.checksums.values.map(_.file)
    val lastCheckpointFile = lastCheckpointSize(listing)
    LogHealth(
      checkpointVersion = cp.map(_.version),
      checkpointKind = cp.map(kind),
      checkpointAgeMillis = cp.map(c => now - c.files.map(_.file.modificationTime).max),
      commitsSinceCheckpoint =
        listing.commits.count(c => c.version > cp.fold(-1L)(_.version) && c.version <= version),
      logFiles = files.size + lastCheckpointFile.size,
      logBytes = files.map(_.size).sum + lastCheckpointFile.sum,
      lastCheckpointVersion = listing.lastCheckpoint.map(_.version),
      latestChecksumVersion = listing.checksums.keys.filter(_ <= version).reduceOption(_ max _),
      checksumCurrent = listing.checksums.contains(version)
    )
  }

  def kind(cp: CheckpointInstance): String = cp.naming match {
    case CheckpointNaming.Classic      => "classic"
    case _: CheckpointNaming.MultiPart => "multipart"
    case _: CheckpointNaming.Uuid      => "v2"
  }

  /** The size of `_last_checkpoint`, when it exists. */
  private def lastCheckpointSize(listing: LogListing): Option[Long] = {
    val f = new Path(listing.table.logDir, FileNames.LastCheckpoint)
    try Some(listing.table.fs.getFileStatus(f).getLen)
    catch { case _: java.io.FileNotFoundException => None }
  }
}
