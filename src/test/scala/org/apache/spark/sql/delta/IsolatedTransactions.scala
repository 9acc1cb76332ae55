package org.apache.spark.sql.delta

/** delta-spark transactions at a chosen isolation level, for tests that take delta-spark's conflict
  * checker as the oracle. Open-source delta-spark accepts only `Serializable` as
  * `delta.isolationLevel` (its default), while its conflict checker implements `WriteSerializable`
  * too; this runs that checker at either level. Lives in delta's package to reach its
  * package-private default level.
  */
object IsolatedTransactions {

  /** A transaction on the latest snapshot of `log` at `level` ("Serializable" or
    * "WriteSerializable").
    */
  def start(log: DeltaLog, level: String): OptimisticTransaction = {
    val isolation = IsolationLevel.fromString(level)
    new OptimisticTransaction(log, None, RefVersions.latest(log)) {
      override def getDefaultIsolationLevel(): IsolationLevel = isolation
    }
  }
}
