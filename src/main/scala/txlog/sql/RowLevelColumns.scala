package txlog.sql

import org.apache.spark.sql.Column
import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference}
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types.{DataType, LongType, StringType, StructField, StructType}

import txlog.scan.TableParquetFormat

/** The metadata columns that identify a row for Spark's row-level operations ([[RowLevelDv]]): the
  * data file holding it, by the path its add action gives (`_txlog_file_path`), its index in that
  * file (`_txlog_row_index`, the index a deletion vector counts), and the file's current deletion
  * vector as its JSON descriptor (`_txlog_deletion_vector`, null for a file without one), which a
  * new deletion vector must keep; on a table with row tracking enabled, also the row's id
  * (`_txlog_row_id`, its `_metadata.row_id`), which an updated row keeps. A scan asked for them
  * reads them from its reader's `_metadata` ([[TableParquetFormat.rowLevelFields]]).
  *
  * {{{
  * spark.sql("SELECT _txlog_file_path, _txlog_row_index, id FROM txlog.db.events WHERE id = 7")
  * }}}
  */
private[txlog] object RowLevelColumns {

  val FilePath = "_txlog_file_path"
  val RowIndex = "_txlog_row_index"
  val DeletionVector = "_txlog_deletion_vector"
  val RowId = "_txlog_row_id"

  /** The `_metadata` field each column is read from. */
  private val sources: Map[String, String] = Map(
    FilePath -> TableParquetFormat.PathField,
    RowIndex -> "row_index",
    DeletionVector -> TableParquetFormat.DvField,
    RowId -> txlog.scan.RowTrackingRead.RowId
  )

  private val types: Seq[(String, DataType, Boolean)] = Seq(
    (FilePath, StringType, false),
    (RowIndex, LongType, false),
    (DeletionVector, StringType, true),
    (RowId, LongType, false)
  )

  /** The columns (the row id only when `tracked`: row tracking enabled), unless the table
    * (`schema`) has a column of one of their names (then the table offers no row-level operation:
    * [[clash]]).
    *
    * {{{
    * RowLevelColumns.columns(snapshot.metadata.schema, snapshot.config.rowTracking).map(_.name)
    * }}}
    */
  def columns(schema: StructType, tracked: Boolean): Seq[MetadataColumn] =
    if (clash(schema).nonEmpty) Nil
    else
      types.filter(t => tracked || t._1 != RowId).map { case (n, t, nullable) =>
        new Named(n, t, nullable)
      }

  /** The table's columns named as one of these (in any case). */
  def clash(schema: StructType): Seq[String] =
    schema.fieldNames.toSeq.filter(n => sources.keySet.exists(_.equalsIgnoreCase(n)))

  /** The row id of a delta-based operation: the file and the row's index in it. */
  def rowId: Array[NamedReference] =
    Array(Expressions.column(FilePath), Expressions.column(RowIndex))

  /** What a delete or update must know beyond the row id: the file's deletion vector, and (when
    * `tracked`) the row's id, which an updated row keeps.
    */
  def required(tracked: Boolean): Array[NamedReference] =
    (Seq(DeletionVector) ++ (if (tracked) Seq(RowId) else Nil)).map(Expressions.column).toArray

  /** Whether `field`, one of the columns a scan is asked for, is one of these. */
  def asked(field: StructField, schema: StructType): Boolean =
    sources.contains(field.name) && !schema.fieldNames.contains(field.name)

  /** The column `name` (one of these) from the `_metadata` of a row-level scan's plan. */
  def select(name: String): Column = col(FileMetadata.Name).getField(sources(name)).as(name)

  private final class Named(n: String, t: DataType, nullable: Boolean) extends MetadataColumn {
    override def name(): String = n
    override def dataType(): DataType = t
    override def isNullable(): Boolean = nullable
  }
}
