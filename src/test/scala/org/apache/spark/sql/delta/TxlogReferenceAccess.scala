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

  /** A snapshot's reconciled actions, read by one job of delta-spark's own state reconstruction
    * (uncached): its live files, tombstones, latest transaction per application and domains
    * (removed ones included), as `allFiles`, `tombstones`, `setTransactions` and `domainMetadata`
    * give them one job each over a cached state.
    */
  def reconciled(s: Snapshot): (
      Seq[actions.AddFile],
      Seq[actions.RemoveFile],
      Seq[actions.SetTransaction],
      Seq[actions.DomainMetadata]
  ) = {
    // Protected in Scala, public in the bytecode of every delta-spark release the build tests.
    val state = classOf[Snapshot].getMethod("stateReconstruction").invoke(s)
    val all = state.asInstanceOf[org.apache.spark.sql.Dataset[actions.SingleAction]].collect().toSeq
    (
      all.flatMap(a => Option(a.add)),
      all.flatMap(a => Option(a.remove)),
      all.flatMap(a => Option(a.txn)),
      all.flatMap(a => Option(a.domainMetadata))
    )
  }
}
