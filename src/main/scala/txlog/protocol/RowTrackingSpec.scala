package txlog.protocol

/** The spec's "Row Tracking": its domain and the properties naming the materialized columns
  * (whether it is enabled: [[TableConfiguration.rowTracking]]). Row ids are assigned on commit by
  * [[txlog.txn.RowTracking]] and read by [[txlog.scan.RowTrackingRead]].
  *
  * {{{
  * snap.domainMetadata.get(RowTrackingSpec.Domain)
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

}
