package txlog.checkpoint

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.StructType

import txlog.errors.TxlogErrors
import txlog.log.TablePath

/** The number of actions of each kind in a checkpoint (or part of one). */
private[txlog] final case class ActionCounts(
    adds: Long,
    removes: Long,
    metadata: Long,
    protocol: Long,
    txns: Long,
    domains: Long,
    checkpointMetadata: Long,
    sidecars: Long
) {
  def total: Long = adds + removes + metadata + protocol + txns + domains +
    checkpointMetadata + sidecars
  def +(o: ActionCounts): ActionCounts = ActionCounts(
    adds + o.adds,
    removes + o.removes,
    metadata + o.metadata,
    protocol + o.protocol,
    txns + o.txns,
    domains + o.domains,
    checkpointMetadata + o.checkpointMetadata,
    sidecars + o.sidecars
  )
  override def toString: String = s"$adds add, $removes remove, $metadata metaData, " +
    s"$protocol protocol, $txns txn, $domains domainMetadata, " +
    s"$checkpointMetadata checkpointMetadata, $sidecars sidecar"
}

private[txlog] object ActionCounts {
  val zero: ActionCounts = ActionCounts(0, 0, 0, 0, 0, 0, 0, 0)
}
