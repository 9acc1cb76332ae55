package txlog.txn

import org.apache.spark.sql.Row

import txlog.checksum.{DeletedRecordCounts, FileAggregates, FileSizeHistogram}

/** Counts over one kind of a commit's file actions (adds or removes), what the commit changes in
  * the table's version checksum: files, bytes, deletion vectors and deleted records, and the file
  * size histogram over `FileSizeHistogram.DefaultBoundaries` and the deleted record counts
  * histogram, as (bin -> files) and (bin -> bytes) for the bins that are not empty.
  */
private[txlog] final case class FileTally(
    files: Long,
    bytes: Long,
    withoutSize: Long,
    withoutDataChange: Long,
    deletionVectors: Long,
    deletedRecords: Long,
    sizeBinFiles: Map[Int, Long],
    sizeBinBytes: Map[Int, Long],
    deletedBinFiles: Map[Int, Long]
) {
  def +(o: FileTally): FileTally = {
    def merge(a: Map[Int, Long], b: Map[Int, Long]) =
      (a.keySet ++ b.keySet).map(k => k -> (a.getOrElse(k, 0L) + b.getOrElse(k, 0L))).toMap
    FileTally(
      files + o.files,
      bytes + o.bytes,
      withoutSize + o.withoutSize,
      withoutDataChange + o.withoutDataChange,
      deletionVectors + o.deletionVectors,
      deletedRecords + o.deletedRecords,
      merge(sizeBinFiles, o.sizeBinFiles),
      merge(sizeBinBytes, o.sizeBinBytes),
      merge(deletedBinFiles, o.deletedBinFiles)
    )
  }
}

private[txlog] object FileTally {
  val empty: FileTally = FileTally(0, 0, 0, 0, 0, 0, Map.empty, Map.empty, Map.empty)

  /** One file action's tally, binned as [[CommitBody]]'s job bins it (a missing size in size bin 0,
    * a missing deletion vector as 0 deleted records).
    */
  def of(
      size: Option[Long],
      dataChange: Option[Boolean],
      dvCardinality: Option[Long]
  ): FileTally = {
    val bytes = size.getOrElse(0L)
    val sizeBin = FileAggregates.binIndex(bytes, FileSizeHistogram.DefaultBoundaries)
    val deletedBin =
      FileAggregates.binIndex(dvCardinality.getOrElse(0L), DeletedRecordCounts.LowerBounds)
    FileTally(
      1,
      bytes,
      if (size.isEmpty) 1 else 0,
      if (dataChange.contains(false)) 1 else 0,
      if (dvCardinality.isDefined) 1 else 0,
      dvCardinality.getOrElse(0L),
      Map(sizeBin -> 1L),
      Map(sizeBin -> bytes),
      Map(deletedBin -> 1L)
    )
  }
}
