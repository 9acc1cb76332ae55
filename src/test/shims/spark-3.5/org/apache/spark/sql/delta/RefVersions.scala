package org.apache.spark.sql.delta

import java.sql.Timestamp

/** delta-spark's own time travel (the oracle), through the signatures of delta-spark 3.3. */
object RefVersions {

  /** delta-spark's snapshot of `log` at version `v`. */
  def snapshotAt(log: DeltaLog, v: Long): Snapshot = log.getSnapshotAt(v, None, None)

  /** delta-spark's latest snapshot of `log`. */
  def latest(log: DeltaLog): Snapshot = log.update(false, None, None)

  /** The version delta-spark resolves `ts` to (as `TIMESTAMP AS OF` does). */
  def versionAtTime(log: DeltaLog, ts: Timestamp): Long =
    log.history.getActiveCommitAtTime(ts, false, true, false).version
}
