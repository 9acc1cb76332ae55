package txlog.sql

import org.apache.spark.sql.Column
import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.execution.datasources.FileFormat
import org.apache.spark.sql.functions.{col, struct}
import org.apache.spark.sql.types.{DataType, StructField, StructType}

import txlog.Snapshot
import txlog.scan.TableScan

/** `_metadata`, the metadata column of txlog's tables in a catalog, with the fields a read by path
  * has ([[txlog.scan.TableParquetFormat.metadataFields]]): Spark's file source fields (`file_path`,
  * `file_name`, `file_size`, `file_block_start`, `file_block_length`, `file_modification_time`,
  * `row_index`) and, on tables with row tracking enabled, `row_id`, `base_row_id`,
  * `default_row_commit_version` and `row_commit_version`. The scan takes the fields asked for from
  * its reader's own `_metadata` ([[SnapshotRows]]), so they are the path read's: `row_index` is the
  * row's position in its parquet file, rows a deletion vector removes left out without renumbering
  * the others.
  *
  * {{{
  * spark.sql("SELECT id, _metadata.file_path, _metadata.row_index FROM txlog.db.events")
  * }}}
  */
private[txlog] object FileMetadata {

  /** The column's name, Spark's for file sources. */
  val Name: String = FileFormat.METADATA_NAME

  /** The column of `snapshot`'s table; none when a column of the table has its name (in any case:
    * the table's column is what the name means).
    *
    * {{{
    * FileMetadata.column(snapshot).map(_.dataType) // Some(struct<file_path: string, ...>)
    * }}}
    */
  def column(snapshot: Snapshot): Option[MetadataColumn] =
    if (snapshot.metadata.schema.fieldNames.exists(_.equalsIgnoreCase(Name))) None
    else {
      // the path read's fields without the markers Spark's file source keeps in their metadata
      val fields =
        TableScan.metadataFields(snapshot).map(f => StructField(f.name, f.dataType, f.nullable))
      Some(new StructColumn(StructType(fields)))
    }

  /** Whether `field`, one of the columns a scan is asked for, is `_metadata` rather than a column
    * of the table (`schema`).
    *
    * {{{
    * FileMetadata.asked(StructField("_metadata", struct), snapshot.metadata.schema) // true
    * }}}
    */
  def asked(field: StructField, schema: StructType): Boolean =
    field.name == Name && !schema.fieldNames.contains(Name)

  /** The `fields` asked for (all of `_metadata` or a part of it) from the `_metadata` of the
    * reader's plan, as the struct `_metadata`.
    *
    * {{{
    * rows.select(FileMetadata.select(new StructType().add("file_path", "string")))
    * }}}
    */
  def select(fields: StructType): Column =
    struct(fields.fieldNames.toSeq.map(n => col(Name).getField(n).as(n)): _*).as(Name)

  /** `_metadata` as a metadata column: never null, as Spark's file sources declare it. */
  private final class StructColumn(fields: StructType) extends MetadataColumn {
    override def name(): String = Name
    override def dataType(): DataType = fields
    override def isNullable(): Boolean = false
  }
}
