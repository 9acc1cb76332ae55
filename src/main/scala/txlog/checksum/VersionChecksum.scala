package txlog.checksum

import txlog.{Metadata, Protocol}
import txlog.replay.{DomainMetadata, SetTransaction}

/** The content of a version checksum file (`n.crc`, the spec's "Version Checksum File"), as txlog
  * computes it from a snapshot. `allFiles` is never written: it would collect the files.
  */
private[txlog] final case class VersionChecksum(
    txnId: Option[String],
    tableSizeBytes: Long,
    numFiles: Long,
    numMetadata: Long,
    numProtocol: Long,
    inCommitTimestampOpt: Option[Long],
    setTransactions: Seq[SetTransaction],
    domainMetadata: Seq[DomainMetadata],
    metadata: Metadata,
    protocol: Protocol,
    fileSizeHistogram: Option[FileSizeHistogram],
    numDeletedRecordsOpt: Option[Long],
    numDeletionVectorsOpt: Option[Long],
    deletedRecordCountsHistogramOpt: Option[Seq[Long]]
)

/** The spec's FileSizeHistogram: bin i counts files of size in [sortedBinBoundaries(i),
  * sortedBinBoundaries(i + 1)), the last bin is unbounded.
  */
private[txlog] final case class FileSizeHistogram(
    sortedBinBoundaries: IndexedSeq[Long],
    fileCounts: IndexedSeq[Long],
    totalBytes: IndexedSeq[Long]
)

private[txlog] object FileSizeHistogram {
  private val KB = 1024L
  private val MB = KB * 1024
  private val GB = MB * 1024

  /** The bin boundaries delta-spark writes (as found in its `.crc` files): 0, 8 KB, then powers of
    * two to 4 MB, 4 MB steps to 40 MB, 8 MB steps to 120 MB, 4 MB steps to 144 MB, 16 MB steps to
    * 576 MB, 64 MB steps to 1408 MB, 128 MB steps to 2 GB, 256 MB steps to 4 GB, then powers of two
    * to 256 GB: 95 bins.
    */
  val DefaultBoundaries: IndexedSeq[Long] = {
    val b = IndexedSeq.newBuilder[Long]
    b += 0L
    b ++= Iterator.iterate(8 * KB)(_ * 2).takeWhile(_ <= 4 * MB)
    b ++= (8 * MB to 40 * MB by 4 * MB)
    b ++= (48 * MB to 120 * MB by 8 * MB)
    b ++= (124 * MB to 144 * MB by 4 * MB)
    b ++= (160 * MB to 576 * MB by 16 * MB)
    b ++= (640 * MB to 1408 * MB by 64 * MB)
    b ++= (1536 * MB to 2 * GB by 128 * MB)
    b ++= (2304 * MB to 4 * GB by 256 * MB)
    b ++= Iterator.iterate(8 * GB)(_ * 2).takeWhile(_ <= 256 * GB)
    b.result()
  }
}

/** The spec's DeletedRecordCountsHistogram: 10 bins of deleted record counts per file. */
private[txlog] object DeletedRecordCounts {

  /** The inclusive lower bound of each bin. */
  val LowerBounds: IndexedSeq[Long] =
    IndexedSeq(0L, 1L, 10L, 100L, 1000L, 10000L, 100000L, 1000000L, 10000000L, Int.MaxValue.toLong)
}
