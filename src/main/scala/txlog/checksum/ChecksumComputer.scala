package txlog.checksum

import txlog.Snapshot

/** The version checksum of a snapshot: protocol, metadata, txns and domain metadata from the
  * driver-side state, everything about files from one aggregation ([[FileAggregates]]).
  */
private[txlog] object ChecksumComputer {

  /** The checksum of `snapshot` with the file size histogram over `boundaries`. Deletion vector
    * fields are set when the protocol supports deletion vectors, as delta-spark does.
    */
  def compute(
      snapshot: Snapshot,
      boundaries: IndexedSeq[Long] = FileSizeHistogram.DefaultBoundaries
  ): VersionChecksum = {
    val files = FileAggregates.compute(snapshot, boundaries)
    compute(snapshot, files)
  }

  def compute(snapshot: Snapshot, files: FileAggregates): VersionChecksum = {
    val p = snapshot.protocol
    val m = snapshot.metadata
    val dv = p.hasReaderFeature("deletionVectors") || p.hasWriterFeature("deletionVectors")
    VersionChecksum(
      txnId = None,
      tableSizeBytes = files.tableSizeBytes,
      numFiles = files.numFiles,
      numMetadata = 1L,
      numProtocol = 1L,
      inCommitTimestampOpt =
        if (snapshot.config.inCommitTimestamps) Some(snapshot.timestamp) else None,
      setTransactions = snapshot.liveTransactionsAt(snapshot.timestamp),
      domainMetadata = snapshot.state.domains.values.toSeq.sortBy(_.domain),
      metadata = m,
      protocol = p,
      fileSizeHistogram = Some(files.histogram),
      numDeletedRecordsOpt = if (dv) Some(files.numDeletedRecords) else None,
      numDeletionVectorsOpt = if (dv) Some(files.numDeletionVectors) else None,
      deletedRecordCountsHistogramOpt = if (dv) Some(files.deletedRecordCounts) else None
    )
  }
}
