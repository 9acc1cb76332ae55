package txlog.scan

import java.io.FileNotFoundException

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  BoundReference,
  FileSourceConstantMetadataStructField,
  Literal,
  UnsafeProjection
}
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

import txlog.errors.TxlogErrors
import txlog.deletionvectors.{DeletionVectorStore, DvDescriptor}
import txlog.util.SerializableConf

/** Spark's parquet reader applying what the spec asks of a reader of data files: columns read by
  * their physical names (name mode) or field ids (id mode), rows a deletion vector removes left out
  * (by their row index in the file, "Deletion Vector Format"), and a missing data file or deletion
  * vector reported as the typed error naming it.
  *
  * Tables with the deletionVectors feature are read row by row and without splitting files or
  * pushing filters into parquet, so that every row's index is the one the deletion vector counts. A
  * file may also carry a deletion vector whose rows alone are kept ([[ScanFiles.DvKeepKey]]), as
  * the change data feed reads the rows a new deletion vector deletes.
  *
  * With `changes` (a change data feed read, `txlog.changes`) the data schema ends with the
  * `_change_type` column: read from the file when it has one (a `cdc` file), else the constant the
  * file's metadata gives ([[ScanFiles.ChangeTypeKey]]); such reads are row by row and never push a
  * filter on `_change_type` into parquet (files without the column would be skipped).
  *
  * On tables with row tracking enabled `_metadata` also has `row_id`, `base_row_id`,
  * `default_row_commit_version` and `row_commit_version` ([[RowTrackingRead]]); reads asking for
  * them are row by row.
  *
  * With `rowLevel` (the scan of a row-level operation, `txlog.sql.RowLevelColumns`) `_metadata`
  * also has each file's path as its add action gives it and its deletion vector's descriptor
  * ([[TableParquetFormat.rowLevelFields]]).
  *
  * {{{
  * new TableParquetFormat(ReadSpec(snapshot))
  * }}}
  */
private[txlog] final class TableParquetFormat(
    val table: ReadSpec,
    val changes: Boolean = false,
    val rowLevel: Boolean = false
) extends ParquetFileFormat {

  override def shortName(): String = "txlog"

  override def toString: String = "txlog"

  override def supportBatch(spark: SparkSession, schema: StructType): Boolean =
    !table.deletionVectors && !changes && !RowTrackingRead.asked(schema) &&
      super.supportBatch(spark, schema)

  override def isSplitable(
      spark: SparkSession,
      options: Map[String, String],
      path: org.apache.hadoop.fs.Path
  ): Boolean = !table.deletionVectors && super.isSplitable(spark, options, path)

  /** Spark's fields (`file_path`, `row_index`, ...) and, on tables with row tracking enabled, the
    * row tracking fields ([[RowTrackingRead]]); none in change data feed reads (the spec gives
    * `cdc` files no row ids).
    */
  override def metadataSchemaFields: Seq[StructField] =
    TableParquetFormat.metadataFields(!changes && table.rowTracking.isDefined) ++
      (if (rowLevel) TableParquetFormat.rowLevelFields else Nil)

  override def fileConstantMetadataExtractors: Map[String, PartitionedFile => Any] = {
    val spark = super.fileConstantMetadataExtractors
    val tracking =
      if (changes || table.rowTracking.isEmpty) spark
      else spark ++ RowTrackingRead.extractors(table)
    if (rowLevel) tracking ++ TableParquetFormat.rowLevelExtractors(table) else tracking
  }

  override def buildReaderWithPartitionValues(
      spark: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration
  ): PartitionedFile => Iterator[InternalRow] = {
    val mode = table.columnMappingMode
    // row tracking's generated fields are read as the materialized columns, then filled
    val rowIdAt = requiredSchema.fieldNames.indexOf(RowTrackingRead.RowIdColumn)
    val versionAt = requiredSchema.fieldNames.indexOf(RowTrackingRead.RowCommitVersionColumn)
    val required = RowTrackingRead.materialized(
      PhysicalSchema.project(requiredSchema, table.tableSchema, mode),
      table
    )
    val data = PhysicalSchema.project(dataSchema, table.tableSchema, mode)
    val unpushed =
      if (!changes) filters
      else filters.filterNot(_.references.exists(_ == TableParquetFormat.ChangeTypeColumn))
    val pushed =
      if (table.deletionVectors) Nil
      else if (PhysicalSchema.maps(mode))
        PhysicalSchema.renameFilters(unpushed, table.physicalNames)
      else unpushed
    if (mode == "id") hadoopConf.setBoolean(TableParquetFormat.FieldIdReadKey, true)
    val dvs = table.deletionVectors
    // the name Spark's parquet readers fill with each row's index in its file (nullable:
    // a required column missing from a file fails the read); asked for by the query
    // (`_metadata.row_index`) or added after the required columns
    val indexName = ParquetFileFormat.ROW_INDEX_TEMPORARY_COLUMN_NAME
    val askedIndex = required.fieldNames.indexOf(indexName)
    val withIndex =
      if ((dvs || rowIdAt >= 0) && askedIndex < 0) required.add(indexName, LongType, true)
      else required
    val indexAt = if (askedIndex >= 0) askedIndex else required.length
    val added = withIndex.length - required.length
    val read = super.buildReaderWithPartitionValues(
      spark,
      data,
      partitionSchema,
      withIndex,
      pushed,
      options,
      hadoopConf
    )
    // the configuration deletion vectors are read with, sent only when there may be some
    val conf =
      if (dvs) Some(spark.sparkContext.broadcast(new SerializableConf(hadoopConf))) else None
    val t = table
    val outputTypes = (required.fields ++ partitionSchema.fields).map(f => (f.dataType, f.nullable))
    val changeAt =
      if (changes) requiredSchema.fieldNames.indexOf(TableParquetFormat.ChangeTypeColumn) else -1
    // nothing asked of the rows but the columns: passed on as the reader gives them
    val simple = changeAt < 0 && rowIdAt < 0 && versionAt < 0
    val plain = !dvs && simple
    // a file without a deletion vector, on a table that may have some, is read as on a table
    // without them when nothing else is asked of its rows: its rows as the reader gives them
    // (without the row index added for vectors), no projection
    val bare = dvs && simple
    val readBare =
      if (!bare || added == 0) read
      else {
        // a configuration of its own: Spark's reader keeps the one it is given (its read schema)
        super.buildReaderWithPartitionValues(
          spark,
          data,
          partitionSchema,
          required,
          pushed,
          options,
          new Configuration(hadoopConf)
        )
      }
    (file: PartitionedFile) => {
      val dataFile = file.filePath.toString
      val meta = file.otherConstantMetadataColumnValues
      def vector(key: String) = meta.get(key).exists(_.isInstanceOf[DvDescriptor])
      val bareFile = bare && !vector(ScanFiles.DvKey) && !vector(ScanFiles.DvKeepKey)
      val reader = if (bareFile) readBare else read
      val rows =
        try reader(file)
        catch {
          case e: FileNotFoundException =>
            throw TxlogErrors.dataFileNotFound(t.root, t.version, dataFile, e)
        }
      if (plain || bareFile) rows
      else {
        val changeType = meta.get(ScanFiles.ChangeTypeKey).collect { case s: String => s }
        // an added row index sits after the required columns, before the partition values; a
        // file without `_change_type` gets its constant
        val keep = outputTypes.indices.map { i =>
          val (dataType, nullable) = outputTypes(i)
          if (i == changeAt && changeType.isDefined) {
            Literal(UTF8String.fromString(changeType.get), StringType)
          } else BoundReference(if (i >= required.length) i + added else i, dataType, nullable)
        }
        val project = UnsafeProjection.create(keep)
        val fill = RowTrackingRead.filler(t, file, rowIdAt, versionAt, indexAt)
        val output: InternalRow => InternalRow = fill match {
          case None    => project
          case Some(f) => r => f(r, project(r))
        }
        def dv(key: String) = meta.get(key).collect { case d: DvDescriptor =>
          DeletionVectorStore.load(t.root, t.version, dataFile, d, conf.get.value.value)
        }
        (if (dvs) dv(ScanFiles.DvKey) else None, if (dvs) dv(ScanFiles.DvKeepKey) else None) match {
          case (None, None) => rows.map(output)
          case (deleted, kept) =>
            rows
              .filter { r =>
                val i = r.getLong(indexAt)
                kept.forall(_.contains(i)) && !deleted.exists(_.contains(i))
              }
              .map(output)
        }
      }
    }
  }

  override def equals(other: Any): Boolean = other match {
    case o: TableParquetFormat => o.table == table && o.changes == changes && o.rowLevel == rowLevel
    case _                     => false
  }

  override def hashCode: Int = (table, changes, rowLevel).hashCode
}

private[txlog] object TableParquetFormat {

  /** Spark's setting for matching parquet columns by field id, set for tables in id mode. */
  val FieldIdReadKey = "spark.sql.parquet.fieldId.read.enabled"

  /** The change data feed's column of change types, read from `cdc` files. */
  val ChangeTypeColumn = "_change_type"

  /** The fields of `_metadata` in reads by this format: Spark's (`file_path`, `file_name`,
    * `file_size`, `file_block_start`, `file_block_length`, `file_modification_time`, `row_index`)
    * and, with `rowTracking`, [[RowTrackingRead.fields]]. The tables of catalogs offer the same
    * (`txlog.sql.FileMetadata`).
    *
    * {{{
    * TableParquetFormat.metadataFields(rowTracking = false).map(_.name) // file_path, ...
    * }}}
    */
  /** The field of `_metadata` holding a file's path as its add action gives it (row-level scans).
    */
  val PathField = "txlog_path"

  /** The field of `_metadata` holding a file's deletion vector descriptor as its JSON object, null
    * for a file without one (row-level scans).
    */
  val DvField = "txlog_deletion_vector"

  /** [[PathField]] and [[DvField]], constant per file. */
  val rowLevelFields: Seq[StructField] = Seq(
    FileSourceConstantMetadataStructField(PathField, StringType, nullable = false),
    FileSourceConstantMetadataStructField(DvField, StringType, nullable = true)
  )

  /** The values of [[rowLevelFields]]: from the file's metadata ([[ScanFiles.PathKey]],
    * [[ScanFiles.DvKey]]).
    */
  def rowLevelExtractors(table: ReadSpec): Map[String, PartitionedFile => Any] = Map(
    PathField -> { (f: PartitionedFile) =>
      f.otherConstantMetadataColumnValues.get(ScanFiles.PathKey) match {
        case Some(p: String) => p
        case _ =>
          throw new IllegalStateException(
            s"The scan of a row-level operation on ${table.root} v${table.version} got " +
              s"${f.filePath} without its add's path."
          )
      }
    },
    DvField -> { (f: PartitionedFile) =>
      f.otherConstantMetadataColumnValues.get(ScanFiles.DvKey) match {
        case Some(dv: DvDescriptor) => dv.toJson
        case _                      => null
      }
    }
  )

  def metadataFields(rowTracking: Boolean): Seq[StructField] = {
    val spark = new ParquetFileFormat().metadataSchemaFields
    if (rowTracking) spark ++ RowTrackingRead.fields else spark
  }
}
