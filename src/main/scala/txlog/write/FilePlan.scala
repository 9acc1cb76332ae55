package txlog.write

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.{col, lit}
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import txlog.protocol.TableConfiguration
import txlog.{Metadata, Protocol}
import txlog.errors.TxlogErrors
import txlog.protocol.ColumnMapping
import txlog.scan.{PhysicalSchema, TableParquetFormat}

/** How the data files of a table are written, from its protocol and metadata: where they go
  * ([[FileLayout]]), the parquet schema (every field nullable, as delta-spark writes them, NOT NULL
  * being checked by the job itself; under column mapping physical names and field ids), which
  * statistics they get and whether those carry `tightBounds`, and the table's logical schema
  * (`tableSchema`), whose NOT NULL fields the job checks ([[NullChecks]]). The same for a write and
  * for OPTIMIZE.
  */
private[txlog] final case class FilePlan(
    layout: FileLayout,
    fileSchema: StructType,
    stats: StatsSpec,
    tightBounds: Boolean,
    tableSchema: StructType
)

private[txlog] object FilePlan {

  def of(table: String, p: Protocol, md: Metadata, dataChange: Boolean): FilePlan = {
    val parts = md.partitionColumns
    val dataColumns = StructType(md.schema.fields.filterNot(f => parts.contains(f.name)))
    val config = TableConfiguration(p, md)
    val mapping = config.columnMappingMode
    val layout = FileLayout(
      partitionColumns = parts,
      partitionKeys = parts.map(c => ColumnMapping.physicalName(md.schema(c))),
      // delta-spark puts the files of column-mapped tables under random prefixes (a partition
      // directory named after a column would outlive a rename)
      randomPrefix = randomPrefix(config, forced = PhysicalSchema.maps(mapping)),
      dataChange = dataChange
    )
    FilePlan(
      layout,
      TableSchemaCheck.nullable(PhysicalSchema.forWrite(dataColumns, mapping)),
      StatsSpec.of(table, dataColumns, config, ColumnMapping.physicalName),
      config.deletionVectorsSupported,
      md.schema
    )
  }

  /** `plan` writing, after the data columns, the table's materialized row tracking columns
    * `columns` (their physical names, as [[RowIdsKept.columns]] gives them; none: `plan` itself):
    * longs, a row's id and commit version kept through a rewrite or an update.
    *
    * {{{
    * val plan = FilePlan.withRowIds(FilePlan.of(root, p, md, true), RowIdsKept.columns(snap))
    * }}}
    */
  def withRowIds(plan: FilePlan, columns: Seq[String]): FilePlan =
    plan.copy(fileSchema = columns.foldLeft(plan.fileSchema)(_.add(_, LongType)))

  /** The directory change data files go under, in the table's root. */
  val ChangeDataDir = "_change_data"

  /** The plan of a DML's change data files ("Change Data Files"): the table's data columns then
    * `_change_type` (string), under [[ChangeDataDir]] in the partition directories (or random
    * prefixes) the table's data files get, with no statistics (a `cdc` action has none); their rows
    * are written as `of`'s, with `_change_type` after the table's columns.
    *
    * {{{
    * val plan = FilePlan.changeData(root, snap.protocol, snap.metadata)
    * }}}
    */
  def changeData(table: String, p: Protocol, md: Metadata): FilePlan = {
    val data = of(table, p, md, dataChange = false)
    FilePlan(
      data.layout.copy(changeData = true),
      data.fileSchema.add(ChangeTypeColumn, StringType),
      StatsSpec(Vector.empty, 0),
      tightBounds = false,
      md.schema.add(ChangeTypeColumn, StringType)
    )
  }

  /** The change data feed's column of change types, read from `cdc` files. */
  val ChangeTypeColumn: String = TableParquetFormat.ChangeTypeColumn

  /** The random directory length files go under (`delta.randomizeFilePrefixes`, or `forced`), of
    * `delta.randomPrefixLength` characters (2).
    */
  private def randomPrefix(config: TableConfiguration, forced: Boolean): Option[Int] =
    if (forced || config.randomizeFilePrefixes) Some(config.randomPrefixLength) else None

  /** Remove actions for whole files of `Snapshot.allFiles` (a write's overwrite, a delete). */
  def removes(files: DataFrame, dataChange: Boolean): DataFrame = files.select(
    col("path"),
    col("partitionValues"),
    col("size"),
    lit(true).as("extendedFileMetadata"),
    lit(dataChange).as("dataChange")
  )

}
