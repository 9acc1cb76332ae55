package txlog.protocol

import txlog.{Metadata, Protocol}

/** The spec's "Row Tracking": its domain, the properties naming the materialized columns, and
  * whether it is enabled. Row ids are assigned on commit by [[txlog.txn.RowTracking]] and read by
  * [[txlog.scan.RowTrackingRead]].
  *
  * {{{
  * if (RowTrackingSpec.enabled(snap.protocol, snap.metadata)) ...
  * }}}
  */
private[txlog] object RowTrackingSpec {

  /** The domain holding the table's row id high water mark. */
  val Domain = "delta.rowTracking"

  /** The properties naming the materialized row id and row commit version columns, each with the
    * prefix of the names txlog gives them.
    */
  val ColumnNameKeys: Seq[(String, String)] = Seq(
    "delta.rowTracking.materializedRowIdColumnName" -> "_row-id-col-",
    "delta.rowTracking.materializedRowCommitVersionColumnName" -> "_row-commit-version-col-"
  )

  /** Whether row tracking is enabled (supported, and `delta.enableRowTracking` true). */
  def enabled(p: Protocol, md: Metadata): Boolean =
    p.hasWriterFeature("rowTracking") &&
      TableProperties.flag(md.configuration, "delta.enableRowTracking")
}
