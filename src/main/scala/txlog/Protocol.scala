package txlog

/** A table's protocol action ("Protocol Evolution"): the reader and writer versions and, from
  * reader version 3 / writer version 7, the table features readers and writers must implement.
  *
  * {{{
  * val p = DeltaLog.forTable(spark, "/data/t").snapshot().protocol
  * if (p.hasReaderFeature("deletionVectors")) ...
  * }}}
  */
final case class Protocol(
    minReaderVersion: Int,
    minWriterVersion: Int,
    readerFeatures: Option[Set[String]],
    writerFeatures: Option[Set[String]]
) {

  /** Whether the protocol lists `feature` as a reader feature. Example:
    * `p.hasReaderFeature("deletionVectors")`.
    */
  def hasReaderFeature(feature: String): Boolean = readerFeatures.exists(_.contains(feature))

  /** Whether the protocol lists `feature` as a writer feature. Example:
    * `p.hasWriterFeature("inCommitTimestamp")`.
    */
  def hasWriterFeature(feature: String): Boolean = writerFeatures.exists(_.contains(feature))
}
