package txlog.txn

import txlog.protocol.TableConfiguration
import txlog.{Metadata, Protocol}
import txlog.errors.TxlogErrors

/** The spec's rules on a commit's actions that its protocol and metadata decide: domain metadata
  * needs its writer feature, an append-only table loses no data. The committer applies them to each
  * attempt.
  */
private[txlog] object ActionRules {

  /** INVALID_COMMIT_ACTIONS when a commit stages domainMetadata actions (`domains`) and the table's
    * protocol (after this commit) lacks the domainMetadata writer feature: the spec's "Domain
    * Metadata" needs writer version 7 with that feature.
    */
  def checkDomains(table: String, protocol: Protocol, domains: Set[String]): Unit =
    if (domains.nonEmpty && !protocol.hasWriterFeature("domainMetadata")) {
      throw TxlogErrors.invalidCommitActions(
        table,
        s"domainMetadata actions (${domains.toSeq.sorted.mkString(", ")}) need the " +
          "domainMetadata writer feature; upgrade the protocol first (or in the same commit), " +
          "e.g. with the table property delta.feature.domainMetadata = supported"
      )
    }

  /** Raises APPEND_ONLY_VIOLATION when a table with `delta.appendOnly` would lose data. */
  def checkAppendOnly(
      table: String,
      config: TableConfiguration,
      hasDataChangingRemoves: => Boolean
  ): Unit =
    if (config.appendOnly && hasDataChangingRemoves) {
      throw TxlogErrors.appendOnlyViolation(table)
    }
}
