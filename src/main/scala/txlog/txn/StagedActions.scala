package txlog.txn

import org.apache.spark.sql.DataFrame

import txlog.{Metadata, Protocol}
import txlog.protocol.DomainAction

/** What a transaction will commit: file actions as DataFrames (shaped like `Snapshot.allFiles` for
  * adds, `Snapshot.tombstones` for removes), the rest on the driver. `txns` maps app ids to
  * versions; `domains` is keyed by domain. `restoring` marks a RESTORE: its metadata is an older
  * version's, so the checks against the current metadata (columns dropped or renamed, column
  * mapping ids reused) do not apply. `identityOnly` marks metadata that only raises identity
  * columns' high water marks (tagged so in commitInfo, as delta-spark tags it). `replacesTable`
  * marks a commit that removes every file of the snapshot read (an overwrite with a new schema):
  * the committer checks that it does, and its metadata may then change types and partitioning
  * ([[WriterRules.prepare]]'s `replacing`).
  */
private[txlog] final case class StagedActions(
    adds: Seq[DataFrame],
    removes: Seq[DataFrame],
    cdc: Seq[DataFrame],
    protocol: Option[Protocol],
    metadata: Option[Metadata],
    txns: Map[String, Long],
    domains: Map[String, DomainAction],
    restoring: Boolean = false,
    replacesTable: Boolean = false,
    identityOnly: Boolean = false
) {

  /** Whether this commit only adds files and read no files (delta-spark's `isBlindAppend`). */
  def isBlindAppend(read: ReadSet): Boolean =
    removes.isEmpty && cdc.isEmpty && read.predicates.isEmpty && !read.wholeTable

  def summary(read: ReadSet): StagedSummary = StagedSummary(
    protocol.isDefined,
    metadata.isDefined,
    removes,
    txns.keySet,
    domains.keySet,
    isBlindAppend(read)
  )
}
