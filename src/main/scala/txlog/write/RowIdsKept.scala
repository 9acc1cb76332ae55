package txlog.write

import txlog.Snapshot
import txlog.errors.TxlogErrors
import txlog.protocol.RowTrackingSpec
import txlog.scan.RowTrackingRead

/** Row ids an UPDATE or MERGE keeps ("Row Tracking": a row updated keeps its id, and its commit
  * version becomes the commit's). On a table with row tracking enabled the new rows are written
  * with the table's materialized columns after its data columns, as delta-spark writes them: the
  * materialized row id column holds an updated row's old id (its `_metadata.row_id`, read by the
  * scan of the operation, `txlog.sql.RowLevelColumns.RowId`) and is null for an inserted row, which
  * the file's `baseRowId` (assigned at commit) then numbers; the row commit version column is null,
  * so every new row's version is its file's `defaultRowCommitVersion`, the commit's.
  *
  * {{{
  * val names = RowIdsKept.columns(snapshot) // Seq(rowIdColumn, rowCommitVersionColumn) or Nil
  * }}}
  */
private[txlog] object RowIdsKept {

  /** The materialized row id and row commit version column names (physical, as written), when row
    * tracking is enabled on `snap`; else none. A table with row tracking enabled whose metadata
    * lacks one is MALFORMED_LOG_FILE, as its readers find it.
    */
  def columns(snap: Snapshot): Seq[String] =
    RowTrackingRead.columns(snap.protocol, snap.metadata).toSeq.flatMap { c =>
      Seq(c.rowId, c.rowCommitVersion).zip(RowTrackingSpec.ColumnNameKeys).map {
        case (name, (key, _)) =>
          name.getOrElse {
            throw TxlogErrors.rowTrackingColumnNameMissing(snap.tablePath, snap.version, key)
          }
      }
    }
}
