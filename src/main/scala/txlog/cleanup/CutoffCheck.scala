package txlog.cleanup

import scala.util.control.NonFatal

import org.apache.spark.sql.SparkSession

import txlog.TxlogException
import txlog.log.{LogListing, LogSegment}
import txlog.replay.SnapshotLoader

/** The cutoff checkpoint of a cleanup plan, read before anything older is deleted: once the commits
  * below it are gone, every kept version is read from it, so it must be whole (every part, every
  * sidecar) and readable. A plan whose cutoff checkpoint is not keeps only its leftovers and says
  * why.
  */
private[txlog] object CutoffCheck {

  /** Why the snapshot at checkpoint `version`, read from the checkpoint alone, cannot be read. */
  def problem(spark: SparkSession, listing: LogListing, version: Long): Option[String] =
    try {
      val segment = LogSegment.build(listing, Some(version))
      if (!segment.checkpoint.exists(_.version == version)) {
        Some(s"no complete checkpoint of version $version is listed")
      } else {
        val snapshot = SnapshotLoader.load(spark, listing, segment)
        snapshot.numFiles // reads every part and sidecar
        None
      }
    } catch {
      case e: TxlogException => Some(s"${e.errorClass}: ${e.problem}")
      // A part or sidecar the reader fails on (a truncated parquet file, a storage failure): not
      // provably whole, so nothing older goes.
      case NonFatal(e) =>
        Some(s"${e.getClass.getSimpleName}: ${String.valueOf(e.getMessage).linesIterator.next()}")
    }
}
