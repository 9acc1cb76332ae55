package txlog.txn

import org.apache.spark.sql.Row

import txlog.checksum.{DeletedRecordCounts, FileAggregates, FileSizeHistogram}

/** What a commit's adds and removes change in the table's file aggregates. */
private[txlog] final case class CommitFileDelta(adds: FileTally, removes: FileTally)

private[txlog] object CommitFileDelta {
  val empty: CommitFileDelta = CommitFileDelta(FileTally.empty, FileTally.empty)

  /** The delta from the rows of [[CommitBody]]'s per-bin aggregation: (kind, sizeBin, deletedBin,
    * files, bytes, withoutSize, withoutDataChange, deletionVectors, deletedRecords) at the given
    * column offsets.
    */
  def fromRows(rows: Seq[Row], at: Int): CommitFileDelta = {
    def tally(r: Row): FileTally = {
      val sizeBin = r.getInt(at + 1)
      val deletedBin = r.getInt(at + 2)
      val files = r.getLong(at + 3)
      FileTally(
        files,
        r.getLong(at + 4),
        r.getLong(at + 5),
        r.getLong(at + 6),
        r.getLong(at + 7),
        r.getLong(at + 8),
        Map(sizeBin -> files),
        Map(sizeBin -> r.getLong(at + 4)),
        Map(deletedBin -> files)
      )
    }
    def of(kind: String) =
      rows.filter(_.getString(at) == kind).map(tally).foldLeft(FileTally.empty)(_ + _)
    CommitFileDelta(of("add"), of("remove"))
  }
}
