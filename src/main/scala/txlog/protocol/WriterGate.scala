package txlog.protocol

import txlog.Protocol
import txlog.errors.TxlogErrors

/** The "Writer Requirements" check for txlog's log maintenance (checkpoints, checksums, log
  * compaction, metadata cleanup): a writer must implement every writer feature the protocol lists,
  * so these operations are refused on tables with features txlog does not know.
  *
  * Each feature listed here is one whose actions txlog's maintenance preserves unchanged (row
  * tracking's baseRowId and domain metadata, clustering's domain, in-commit timestamps, and so on);
  * none of these operations writes data files or changes the protocol.
  */
private[txlog] object WriterGate {

  /** The writer version up to which features are implied rather than listed. */
  val MaxLegacyWriterVersion = 6

  val SupportedWriterFeatures: Set[String] = Set(
    "appendOnly",
    "invariants",
    "checkConstraints",
    "generatedColumns",
    "allowColumnDefaults",
    "changeDataFeed",
    "columnMapping",
    "identityColumns",
    "deletionVectors",
    "rowTracking",
    "timestampNtz",
    "domainMetadata",
    "v2Checkpoint",
    "icebergCompatV1",
    "icebergCompatV2",
    "clustering",
    "vacuumProtocolCheck",
    txlog.protocol.InCommitTimestamps.Feature,
    "typeWidening",
    "typeWidening-preview",
    "variantType",
    "variantType-preview"
  ).filter(f => SparkTypes.hasVariant || !SparkTypes.VariantFeatures(f))

  /** Raises UNSUPPORTED_WRITER_FEATURES (or UNSUPPORTED_WRITER_VERSION) unless txlog may write the
    * log of a table with protocol `p`; `operation` names what was attempted.
    */
  def check(table: String, version: Long, p: Protocol, operation: String): Unit = {
    ReaderGate.check(table, version, p)
    if (p.minWriterVersion > 7) {
      throw TxlogErrors.unsupportedWriterVersion(table, p.minWriterVersion, operation)
    }
    val unsupported = p.writerFeatures.getOrElse(Set.empty) -- SupportedWriterFeatures
    if (unsupported.nonEmpty) {
      throw TxlogErrors.unsupportedWriterFeatures(table, unsupported.toSeq.sorted, operation)
    }
  }
}
