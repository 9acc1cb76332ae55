package txlog.table

import org.apache.spark.sql.SparkSession

import txlog.config.TxlogConf
import txlog.log.TablePath
import txlog.util.Clock

/** What the internals of txlog work on for one table: the session, the table's qualified root and
  * Hadoop configuration, the snapshots read so far ([[SnapshotManager]]) and the clock. The public
  * `DeltaLog` is a facade over one context; internals never take the facade, so they build on the
  * snapshots the caller already read (a transaction's read snapshot, the one its commit produced)
  * instead of opening the table again.
  */
private[txlog] final class TableContext(val spark: SparkSession, val table: TablePath) {
  TxlogConf.check(spark)

  /** The snapshots of this table handle. */
  val snapshots: SnapshotManager = new SnapshotManager(spark, table)

  /** The table's qualified root path. */
  def root: String = table.root

  /** Milliseconds since the epoch, as [[Clock]] gives them. */
  def now(): Long = Clock.now()

  /** A context of the same table that remembers no snapshot (replays from storage afresh). */
  def detached(): TableContext = new TableContext(spark, table)
}
