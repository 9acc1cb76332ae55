package txlog.scan

import java.io.FileNotFoundException

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{LongType, StructType}

import txlog.TxlogErrors
import txlog.deletionvectors.{DeletionVectorStore, DvDescriptor}
import txlog.util.SerializableConf

/** Spark's parquet reader applying what the spec asks of a reader of data files: columns read by
  * their physical names (name mode) or field ids (id mode), rows a deletion vector removes left out
  * (by their row index in the file, "Deletion Vector Format"), and a missing data file or deletion
  * vector reported as the typed error naming it.
  *
  * Tables with the deletionVectors feature are read row by row and without splitting files or
  * pushing filters into parquet, so that every row's index is the one the deletion vector counts.
  *
  * {{{
  * new TableParquetFormat(ScanTable(snapshot))
  * }}}
  */
private[txlog] final class TableParquetFormat(val table: ScanTable) extends ParquetFileFormat {

  override def shortName(): String = "txlog"

  override def toString: String = "txlog"

  override def supportBatch(spark: SparkSession, schema: StructType): Boolean =
    !table.deletionVectors && super.supportBatch(spark, schema)

  override def isSplitable(
      spark: SparkSession,
      options: Map[String, String],
      path: org.apache.hadoop.fs.Path
  ): Boolean = !table.deletionVectors && super.isSplitable(spark, options, path)

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
    val required = PhysicalSchema.project(requiredSchema, table.tableSchema, mode)
    val data = PhysicalSchema.project(dataSchema, table.tableSchema, mode)
    val pushed =
      if (table.deletionVectors) Nil
      else if (PhysicalSchema.maps(mode)) PhysicalSchema.renameFilters(filters, table.physicalNames)
      else filters
    if (mode == "id") hadoopConf.setBoolean(TableParquetFormat.FieldIdReadKey, true)
    val dvs = table.deletionVectors
    // the name Spark's parquet readers fill with each row's index in its file (nullable:
    // a required column missing from a file fails the read)
    val withIndex =
      if (dvs) required.add(ParquetFileFormat.ROW_INDEX_TEMPORARY_COLUMN_NAME, LongType, true)
      else required
    val read = super.buildReaderWithPartitionValues(
      spark,
      data,
      partitionSchema,
      withIndex,
      pushed,
      options,
      hadoopConf
    )
    val conf = spark.sparkContext.broadcast(new SerializableConf(hadoopConf))
    val t = table
    val indexAt = required.length
    val outputTypes = (required.fields ++ partitionSchema.fields).map(f => (f.dataType, f.nullable))
    (file: PartitionedFile) => {
      val dataFile = file.filePath.toString
      val rows =
        try read(file)
        catch {
          case e: FileNotFoundException =>
            throw TxlogErrors.dataFileNotFound(t.root, t.version, dataFile, e)
        }
      if (!dvs) rows
      else {
        // the row index is read after the required columns, before the partition values
        val keep = outputTypes.indices.map { i =>
          val (dataType, nullable) = outputTypes(i)
          BoundReference(if (i < indexAt) i else i + 1, dataType, nullable)
        }
        val project = UnsafeProjection.create(keep)
        file.otherConstantMetadataColumnValues.get(ScanFiles.DvKey) match {
          case Some(dv: DvDescriptor) =>
            val deleted =
              DeletionVectorStore.load(t.root, t.version, dataFile, dv, conf.value.value)
            rows.filter(r => !deleted.contains(r.getLong(indexAt))).map(project)
          case _ => rows.map(project)
        }
      }
    }
  }

  override def equals(other: Any): Boolean = other match {
    case o: TableParquetFormat => o.table == table
    case _                     => false
  }

  override def hashCode: Int = table.hashCode
}

private[txlog] object TableParquetFormat {

  /** Spark's setting for matching parquet columns by field id, set for tables in id mode. */
  val FieldIdReadKey = "spark.sql.parquet.fieldId.read.enabled"
}
