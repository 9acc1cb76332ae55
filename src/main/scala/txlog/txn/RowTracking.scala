package txlog.txn

import org.apache.spark.sql.DataFrame

import txlog.{Metadata, Protocol}

/** Row tracking on commit ("Row Tracking"): fresh row ids for the commit's new files. */
private[txlog] object RowTracking {

  /** The adds of a commit of `version` with `baseRowId` and `defaultRowCommitVersion` assigned when
    * the table supports row tracking, and the `delta.rowTracking` domain action carrying the new
    * high water mark (None when nothing changes). `highWaterMark` is the domain's current one.
    * Called again on every rebase, with the winner's high water mark.
    */
  def assign(
      adds: DataFrame,
      protocol: Protocol,
      metadata: Metadata,
      highWaterMark: Option[Long],
      version: Long
  ): (DataFrame, Option[DomainAction]) = (adds, None)
}
