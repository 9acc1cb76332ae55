package txlog.inspect

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.col

import txlog.{Snapshot, TxlogException}
import txlog.checksum.ChecksumValidator
import txlog.log.{CheckpointInstance, LogListing, LogSegment}
import txlog.replay.{FileKeys, SnapshotLoader}

/** Rules that compare stored state with a replay of the commits: each `.crc` against the replayed
  * state of its version ("State Validation"), and each checkpoint against the replay of the commits
  * it covers. One replay per file checked (Spark jobs); only protocol, metadata, transactions,
  * domains and a few differing paths reach the driver.
  */
private[txlog] object StateRules {

  /** Every `.crc` of a version the log can reconstruct, field by field. */
  def checksums(listing: LogListing, load: Long => Snapshot): Seq[Finding] =
    listing.checksums.toSeq.sortBy(_._1).flatMap { case (v, crc) =>
      val path = crc.file.path
      try {
        ChecksumValidator.validate(load(v)).mismatches.map { m =>
          Finding.error(
            v,
            path,
            Rules.ChecksumMismatch,
            s"${m.field}: the file says ${m.expected}, the replay gives ${m.actual}."
          )
        }
      } catch {
        case e: TxlogException if e.file.contains(path) =>
          Seq(Finding.error(v, path, Rules.ChecksumUnreadable, e.getMessage))
        case e: TxlogException if !Validator.Refusals(e.errorClass) =>
          Seq(
            Finding.warning(
              v,
              path,
              Rules.ChecksumUnreadable,
              s"Not checked: version $v cannot be replayed [${e.errorClass}]."
            )
          )
      }
    }

  /** Every complete checkpoint: readable, and equal to the replay of the commits it covers (from
    * commit 0 when all are there, else from the newest older checkpoint).
    */
  def checkpoints(spark: SparkSession, listing: LogListing): Seq[Finding] =
    listing.checkpoints.flatMap(cp => checkpoint(spark, listing, cp))

  private def checkpoint(
      spark: SparkSession,
      listing: LogListing,
      cp: CheckpointInstance
  ): Seq[Finding] = {
    val file = cp.files.head.file.path
    val stored =
      try {
        val s = SnapshotLoader.load(
          spark,
          listing,
          LogSegment(listing.table, cp.version, Some(cp), IndexedSeq.empty)
        )
        s.numFiles // reads every part
        s
      } catch {
        case e: TxlogException if !Validator.Refusals(e.errorClass) =>
          return Seq(Finding.error(cp.version, file, Rules.CheckpointUnreadable, e.getMessage))
      }
    replaySegment(listing, cp) match {
      case None => Nil
      case Some(segment) =>
        val replayed =
          try SnapshotLoader.load(spark, listing, segment)
          catch { case e: TxlogException if !Validator.Refusals(e.errorClass) => return Nil }
        differences(stored, replayed).map(d =>
          Finding.error(cp.version, file, Rules.CheckpointMismatch, d)
        )
    }
  }

  /** The commits (and older checkpoint) that replay `cp`'s version without it, if the log has them
    * contiguously.
    */
  private[txlog] def replaySegment(
      listing: LogListing,
      cp: CheckpointInstance
  ): Option[LogSegment] = {
    val v = cp.version
    def contiguous(from: Long) = {
      val cs = listing.commits.filter(c => c.version >= from && c.version <= v)
      if (cs.map(_.version) == (from to v)) Some(cs) else None
    }
    contiguous(0L)
      .map(cs => LogSegment(listing.table, v, None, cs))
      .orElse {
        listing.checkpoints.filter(_.version < v).lastOption.flatMap { prev =>
          contiguous(prev.version + 1).map(cs => LogSegment(listing.table, v, Some(prev), cs))
        }
      }
  }

  private def differences(stored: Snapshot, replayed: Snapshot): Seq[String] = {
    def proto(s: Snapshot) = {
      val p = s.protocol
      (
        p.minReaderVersion,
        p.minWriterVersion,
        p.readerFeatures.getOrElse(Set.empty),
        p.writerFeatures.getOrElse(Set.empty)
      )
    }
    val state = Seq(
      ("protocol", proto(stored), proto(replayed)),
      ("metaData", stored.metadata, replayed.metadata),
      ("txn", stored.setTransactions, replayed.setTransactions),
      ("domainMetadata", stored.domainMetadata, replayed.domainMetadata)
    ).collect { case (what, a, b) if a != b => s"$what differs: checkpoint $a, replay $b." }
    state ++ files(stored, replayed)
  }

  /** Live files (path key, DV id, size) in one and not the other: two Spark jobs, a few shown. */
  private def files(stored: Snapshot, replayed: Snapshot): Seq[String] = {
    def keys(s: Snapshot): DataFrame = s.allFiles.select(
      FileKeys.pathKey(col("path"), s.tablePath).as("path"),
      FileKeys.dvId(col("deletionVector")).as("dv"),
      col("size")
    )
    val (a, b) = (keys(stored), keys(replayed))
    Seq(("only in the checkpoint", a.except(b)), ("only in the replay", b.except(a))).flatMap {
      case (where, df) =>
        val shown = df.limit(3).collect().map(r => s"${r.get(0)} (${r.get(2)} bytes)")
        if (shown.isEmpty) None
        else Some(s"Live files $where, e.g. ${shown.mkString(", ")}.")
    }
  }
}
