package txlog.scan

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.datasources.HadoopFsRelation
import org.apache.spark.sql.types.StructField

import txlog.Snapshot

/** A snapshot's rows as a Spark relation: Spark's file source over [[SnapshotFileIndex]] (the
  * files) and [[TableParquetFormat]] (the reader), with the table's logical schema, partition
  * columns in their schema position as delta-spark shows them.
  *
  * {{{
  * val df = TableScan.dataFrame(snapshot)
  * }}}
  */
private[txlog] object TableScan {

  /** The relation; with `rowLevel`, its `_metadata` also has what row-level operations identify
    * rows by ([[TableParquetFormat.rowLevelFields]]).
    */
  def relation(snapshot: Snapshot, rowLevel: Boolean = false): HadoopFsRelation = {
    val table = ReadSpec(snapshot)
    HadoopFsRelation(
      location = new SnapshotFileIndex(snapshot, table),
      partitionSchema = table.partitionSchema,
      dataSchema = table.dataSchema,
      bucketSpec = None,
      fileFormat = new TableParquetFormat(table, rowLevel = rowLevel),
      options = Map.empty
    )(snapshot.spark)
  }

  def dataFrame(snapshot: Snapshot, rowLevel: Boolean = false): DataFrame =
    snapshot.spark.baseRelationToDataFrame(relation(snapshot, rowLevel))

  /** The fields of `_metadata` in reads of `snapshot` ([[TableParquetFormat.metadataFields]]),
    * worked out from its protocol and metadata alone.
    *
    * {{{
    * TableScan.metadataFields(snapshot).map(_.name) // file_path, ..., row_index, [row_id, ...]
    * }}}
    */
  def metadataFields(snapshot: Snapshot): Seq[StructField] =
    TableParquetFormat.metadataFields(
      RowTrackingRead.columns(snapshot.protocol, snapshot.metadata).isDefined
    )
}
