package txlog.protocol

import txlog.Protocol
import txlog.errors.TxlogErrors

/** The "Reader Requirements" check: a snapshot may be read only when its protocol is valid, its
  * reader version is 1 to 3 and txlog implements every listed reader feature.
  */
private[txlog] object ReaderGate {

  /** Reader features whose log-level requirements txlog meets (the variant ones only on Spark lines
    * that have a variant type, 4.0 on: see [[SparkTypes]]).
    */
  lazy val SupportedReaderFeatures: Set[String] = Set(
    "columnMapping",
    "deletionVectors",
    "timestampNtz",
    "v2Checkpoint",
    "vacuumProtocolCheck",
    "typeWidening",
    "typeWidening-preview",
    "variantType",
    "variantType-preview",
    "variantShredding-preview"
  ).filter(f => SparkTypes.hasVariant || !SparkTypes.VariantFeatures(f))

  def check(table: String, version: Long, p: Protocol): Unit = {
    if (p.minReaderVersion < 1) {
      throw TxlogErrors.invalidProtocol(
        table,
        version,
        s"minReaderVersion is ${p.minReaderVersion}; it must be at least 1."
      )
    }
    if (p.readerFeatures.isDefined && p.minReaderVersion != 3) {
      throw TxlogErrors.invalidProtocol(
        table,
        version,
        s"readerFeatures are listed but minReaderVersion is ${p.minReaderVersion}, not 3."
      )
    }
    if (p.writerFeatures.isDefined && p.minWriterVersion != 7) {
      throw TxlogErrors.invalidProtocol(
        table,
        version,
        s"writerFeatures are listed but minWriterVersion is ${p.minWriterVersion}, not 7."
      )
    }
    if (p.minReaderVersion > 3) {
      throw TxlogErrors.unsupportedReaderVersion(table, p.minReaderVersion)
    }
    val unsupported = p.readerFeatures.getOrElse(Set.empty) -- SupportedReaderFeatures
    if (unsupported.nonEmpty) {
      throw TxlogErrors.unsupportedReaderFeatures(table, unsupported.toSeq.sorted)
    }
  }
}
