package org.apache.spark.sql.delta

import org.apache.spark.sql.SparkSession

/** Test-only access to delta-spark internals used as an oracle (never used at run time). */
object TxlogReferenceAccess {

  /** delta-spark's reading of `_last_checkpoint`: its version, if it accepts the file. */
  def lastCheckpointVersion(spark: SparkSession, path: String): Option[Long] = {
    DeltaLog.clearCache()
    DeltaLog.forTable(spark, path).readLastCheckpointFile().map(_.version)
  }

  /** delta-spark's reading of `_last_checkpoint`: (version, size, parts, numOfAddFiles). */
  def lastCheckpoint(
      spark: SparkSession,
      path: String
  ): Option[(Long, Long, Option[Int], Option[Long])] = {
    DeltaLog.clearCache()
    DeltaLog
      .forTable(spark, path)
      .readLastCheckpointFile()
      .map(i => (i.version, i.size, i.parts, i.numOfAddFiles))
  }

  /** The version of the checkpoint delta-spark loads the latest snapshot from (-1: none). */
  def checkpointVersionUsed(spark: SparkSession, path: String): Long = {
    DeltaLog.clearCache()
    DeltaLog.forTable(spark, path).update().checkpointProvider.version
  }

  /** (stored, computed) checksums of a `_last_checkpoint` document, by delta-spark. */
  def lastCheckpointChecksums(json: String): (Option[String], String) =
    LastCheckpointInfo.getChecksums(json)
}
