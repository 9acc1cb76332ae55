package txlog.compaction

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession

import txlog.Protocol
import txlog.log.{LogListing, LogSegment}
import txlog.protocol.CommitFile
import txlog.protocol.FileNames
import txlog.replay.{LogActions, ReadErrors}
import txlog.protocol.WriterGate

/** Writes `<start>.<end>.compacted.json` for a range of commits ("Log Compaction Files"). */
private[txlog] object LogCompactor {

  /** Compacts commits `start` to `end` of the listed log; `protocol` is the table's latest, checked
    * by [[WriterGate]] first. Returns the published file's path; when an identical compaction
    * already exists nothing is written.
    */
  def compact(
      spark: SparkSession,
      listing: LogListing,
      protocol: Protocol,
      start: Long,
      end: Long
  ): String = {
    val table = listing.table
    val (target, commits) = plan(listing, protocol, start, end)
    // A segment of just the range, so read failures name the commit file.
    val range = LogSegment(table, end, None, commits)
    ReadErrors.translate(range) {
      val tail =
        LogActions.tail(spark, table, commits, CompactionActions.lineSchema, keepLine = true)
      val lines = CompactionActions.of(spark, tail, table.root)
      CompactionWriter.write(table, lines, target)
    }
    target.toString
  }

  /** What [[compact]] would write, checked as it checks it (the writer gate, every commit of the
    * range listed) without reading the commits: the target's path and the range's commits. A dry
    * run answers with it.
    */
  def plan(
      listing: LogListing,
      protocol: Protocol,
      start: Long,
      end: Long
  ): (Path, IndexedSeq[CommitFile]) = {
    WriterGate.check(listing.table.root, listing.latestVersion, protocol, "write a log compaction")
    val commits = CompactionRange.commits(listing, start, end)
    (new Path(listing.table.logDir, FileNames.compactionName(start, end)), commits)
  }
}
