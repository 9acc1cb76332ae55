package txlog.txn

import org.apache.hadoop.fs.Path

import txlog.protocol.TableConfiguration
import txlog.{Metadata, Protocol, Snapshot, TxlogException}
import txlog.checksum._
import txlog.log.{LogWrites, TablePath}
import txlog.protocol.FileNames
import txlog.replay.{DomainMetadata, SetTransaction}
import txlog.protocol.DomainAction

/** The version checksum (`n.crc`) of a commit, derived from the previous version's checksum and the
  * commit's own actions, never by recounting the table's files.
  *
  * Like delta-spark, it assumes that removes name live files and that adds name files that are not
  * live (true of files from `readFiles` and of newly written files). It derives nothing (and writes
  * no file) when that cannot hold or the inputs are missing: no checksum for the previous version,
  * a remove without `size`, or adds without data change in a commit that removes nothing (they may
  * re-add live files, e.g. to add statistics).
  */
private[txlog] object CommitChecksum {

  /** What the committer knows of the commit it published. `txns` and `domains` are the staged ones;
    * `timestamp` is the commit's (its in-commit timestamp when enabled).
    */
  final case class Input(
      txnId: String,
      protocol: Protocol,
      metadata: Metadata,
      inCommitTimestamp: Option[Long],
      timestamp: Long,
      txns: Map[String, Long],
      domains: Map[String, DomainAction],
      files: CommitFileDelta
  )

  /** The checksum of `version`, committed on `base` (version - 1; None for a new table), or why it
    * cannot be derived. MALFORMED_LOG_FILE when the previous checksum is not valid.
    */
  def derive(
      table: TablePath,
      version: Long,
      base: Option[Snapshot],
      in: Input
  ): Either[String, VersionChecksum] = {
    val adds = in.files.adds
    val removes = in.files.removes
    if (removes.withoutSize > 0) {
      return Left(s"${removes.withoutSize} remove(s) without size")
    }
    if (adds.withoutDataChange > 0 && removes.files == 0) {
      return Left("adds without data change in a commit that removes nothing may re-add files")
    }
    val prev = base match {
      case None => Previous.newTable
      case Some(s) =>
        val stored =
          try StoredChecksum.read(table, version - 1)
          catch {
            case e: TxlogException if e.errorClass == "CHECKSUM_NOT_FOUND" =>
              return Left(s"no checksum for version ${version - 1}")
          }
        Previous.of(stored, s.protocol)
    }
    val numFiles = prev.numFiles + adds.files - removes.files
    val size = prev.bytes + adds.bytes - removes.bytes
    if (numFiles < 0 || size < 0) {
      return Left(
        s"version ${version - 1}'s checksum (${prev.numFiles} files) and this commit's removes " +
          s"(${removes.files}) do not add up"
      )
    }
    val histogram = prev.histogram
      .filter(_.sortedBinBoundaries == FileSizeHistogram.DefaultBoundaries)
      .map { h =>
        FileSizeHistogram(
          h.sortedBinBoundaries,
          h.fileCounts.indices.map(i =>
            h.fileCounts(i) + adds.sizeBinFiles.getOrElse(i, 0L) -
              removes.sizeBinFiles.getOrElse(i, 0L)
          ),
          h.totalBytes.indices.map(i =>
            h.totalBytes(i) + adds.sizeBinBytes.getOrElse(i, 0L) -
              removes.sizeBinBytes.getOrElse(i, 0L)
          )
        )
      }
      .filter(h => h.fileCounts.forall(_ >= 0) && h.totalBytes.forall(_ >= 0))
    val dvSupported = supportsDv(in.protocol)
    val dv = prev.deletionVectors.filter(_ => dvSupported).map { case (dvs, deleted, counts) =>
      (
        dvs + adds.deletionVectors - removes.deletionVectors,
        deleted + adds.deletedRecords - removes.deletedRecords,
        counts.indices.map(i =>
          counts(i) + adds.deletedBinFiles.getOrElse(i, 0L) -
            removes.deletedBinFiles.getOrElse(i, 0L)
        )
      )
    }
    val timestamp = in.inCommitTimestamp.getOrElse(in.timestamp)
    Right(
      VersionChecksum(
        txnId = Some(in.txnId),
        tableSizeBytes = size,
        numFiles = numFiles,
        numMetadata = 1L,
        numProtocol = 1L,
        inCommitTimestampOpt =
          if (TableConfiguration(in.protocol, in.metadata).inCommitTimestamps) in.inCommitTimestamp
          else None,
        setTransactions = transactions(base, in, timestamp),
        domainMetadata = domains(base, in),
        metadata = in.metadata,
        protocol = in.protocol,
        fileSizeHistogram = histogram,
        numDeletedRecordsOpt = dv.map(_._2),
        numDeletionVectorsOpt = dv.map(_._1),
        deletedRecordCountsHistogramOpt = dv.map(_._3)
      )
    )
  }

  /** Writes `n.crc` with put-if-absent: its path, or None when one already exists (the spec forbids
    * overwriting it; whoever wrote it, it stays).
    */
  def write(table: TablePath, version: Long, c: VersionChecksum): Option[String] = {
    val target = new Path(table.logDir, FileNames.checksumName(version))
    if (LogWrites.putIfAbsent(table.fs, target, ChecksumJson.toBytes(c))) Some(target.toString)
    else None
  }

  private def supportsDv(p: Protocol): Boolean =
    p.hasReaderFeature("deletionVectors") || p.hasWriterFeature("deletionVectors")

  /** The txns in force after the commit: the base's and the staged ones, those past
    * `delta.setTransactionRetentionDuration` (measured from the commit's timestamp) left out, as a
    * snapshot of the new version lists them.
    */
  private def transactions(base: Option[Snapshot], in: Input, now: Long): Seq[SetTransaction] = {
    val before = base.fold(Map.empty[String, SetTransaction])(_.state.txns)
    val staged = in.txns.map { case (app, v) => app -> SetTransaction(app, v, Some(now)) }
    val cutoff = TableConfiguration(in.protocol, in.metadata).setTransactionRetentionMillis
    (before ++ staged).values.toSeq
      .filter(t => cutoff.forall(c => t.lastUpdated.exists(_ > now - c)))
      .sortBy(_.appId)
  }

  private def domains(base: Option[Snapshot], in: Input): Seq[DomainMetadata] = {
    val before = base.fold(Map.empty[String, DomainMetadata])(_.state.domains)
    in.domains.values
      .foldLeft(before) { (acc, d) =>
        if (d.removed) acc - d.domain
        else acc + (d.domain -> DomainMetadata(d.domain, d.configuration))
      }
      .values
      .toSeq
      .sortBy(_.domain)
  }

  /** What the previous version's checksum says about files. `deletionVectors` is (deletion vectors,
    * deleted records, deleted record counts histogram) when known.
    */
  private final case class Previous(
      numFiles: Long,
      bytes: Long,
      histogram: Option[FileSizeHistogram],
      deletionVectors: Option[(Long, Long, IndexedSeq[Long])]
  )

  private object Previous {
    val newTable: Previous = Previous(
      0L,
      0L,
      Some(emptyHistogram),
      Some((0L, 0L, DeletedRecordCounts.LowerBounds.map(_ => 0L)))
    )

    /** From a stored checksum of a table whose protocol at that version is `protocol`: without
      * deletion vector fields, a table that did not support deletion vectors has none (every file
      * in the first deleted-records bin).
      */
    def of(c: StoredChecksum, protocol: Protocol): Previous = {
      val n = c.requiredLong("numFiles")
      val stored = for {
        dvs <- c.long("numDeletionVectorsOpt")
        deleted <- c.long("numDeletedRecordsOpt")
        counts <- c.deletedRecordCounts
      } yield (dvs, deleted, counts)
      val dv = stored.orElse {
        if (supportsDv(protocol)) None
        else Some((0L, 0L, DeletedRecordCounts.LowerBounds.indices.map(i => if (i == 0) n else 0L)))
      }
      Previous(n, c.requiredLong("tableSizeBytes"), c.histogram.map(_._2), dv)
    }
  }

  private def emptyHistogram: FileSizeHistogram = {
    val b = FileSizeHistogram.DefaultBoundaries
    FileSizeHistogram(b, b.map(_ => 0L), b.map(_ => 0L))
  }
}
