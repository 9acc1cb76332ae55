package txlog.repair

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.spark.sql.SparkSession

import txlog.checksum.ChecksumValidator
import txlog.log.{CheckpointInstance, LogListing, LogSegment}
import txlog.inspect.StateRules
import txlog.replay.SnapshotLoader

/** Which checkpoints of `listing` repair may trust, given those validate found wrong (`bad`).
  *
  * validate compares a checkpoint with a replay from commit 0 when the log has every commit, else
  * from the newest older checkpoint. A replay from commit 0 is trusted; a replay from an older
  * checkpoint only when that checkpoint is trusted: it is not bad, and either agreed with a trusted
  * replay itself or agrees with its own `.crc` (one replay of its version, read from it alone).
  * Answers are remembered; each checkpoint is judged once.
  */
private[txlog] final class CheckpointTrust(
    spark: SparkSession,
    listing: LogListing,
    bad: Set[CheckpointInstance]
) {
  private val memo = mutable.Map.empty[CheckpointInstance, Boolean]

  /** Whether what validate compared `cp` with is trusted. */
  def sourceTrusted(cp: CheckpointInstance): Boolean =
    StateRules.replaySegment(listing, cp).exists(_.checkpoint.forall(trusted))

  /** Whether `cp` itself is trusted. */
  def trusted(cp: CheckpointInstance): Boolean =
    memo.getOrElseUpdate(cp, !bad(cp) && (sourceTrusted(cp) || agreesWithChecksum(cp)))

  private def agreesWithChecksum(cp: CheckpointInstance): Boolean =
    listing.checksums.contains(cp.version) && {
      try {
        val segment = LogSegment(listing.table, cp.version, Some(cp), IndexedSeq.empty)
        ChecksumValidator.validate(SnapshotLoader.load(spark, listing, segment)).isValid
      } catch { case NonFatal(_) => false }
    }
}
