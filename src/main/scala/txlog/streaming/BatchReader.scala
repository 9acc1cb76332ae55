package txlog.streaming

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.execution.datasources.{
  FileFormat,
  FilePartition,
  PartitionDirectory,
  PartitionedFile
}
import org.apache.spark.sql.types.{DataType, StructType}

import txlog.scan.{ScanFiles, TableParquetFormat}

/** How the micro-batches of a stream are read on the executors, through Spark's DSv2 read API: a
  * batch's files (as directories of one partition's values each) packed into Spark's
  * [[FilePartition]]s, whole files, largest first, up to `spark.sql.files.maxPartitionBytes` with
  * `spark.sql.files.openCostInBytes` counted per file, as Spark's file source packs them; and one
  * reader factory for the whole stream: `format`'s reader (txlog's table reader: column mapping,
  * deletion vectors, change types) of every column of `dataSchema` that is not a partition column,
  * then the partition values of `partitionSchema`, each row projected to `output` (the stream's
  * schema, partition columns in their schema position).
  *
  * {{{
  * val reader = new BatchReader(spark, new TableParquetFormat(spec), spec.dataSchema,
  *   spec.partitionSchema, spec.dataSchema)
  * reader.partitions(directories) // the batch's input partitions
  * }}}
  */
private[txlog] final class BatchReader(
    spark: SparkSession,
    format: TableParquetFormat,
    dataSchema: StructType,
    partitionSchema: StructType,
    output: StructType
) {

  /** The input partitions of a batch reading the files of `directories`. */
  def partitions(directories: Seq[PartitionDirectory]): Array[InputPartition] = {
    val files = directories.flatMap(d => d.files.map(f => ScanFiles.split(d.values, f, f.metadata)))
    if (files.isEmpty) Array.empty
    else {
      val maxSplit = FilePartition.maxSplitBytes(spark, directories)
      FilePartition.getFilePartitions(spark, files.sortBy(-_.length), maxSplit).toArray
    }
  }

  /** The factory of the stream's partition readers, built once on the driver: the parquet reader
    * and the configuration its deletion vectors are read with are sent with it.
    */
  lazy val factory: PartitionReaderFactory = {
    val partitionNames = partitionSchema.fieldNames.toSet
    val required = StructType(dataSchema.filterNot(f => partitionNames(f.name)))
    // rows one at a time: the projection below takes rows
    val options = Map(FileFormat.OPTION_RETURNING_BATCH -> "false")
    val read = format.buildReaderWithPartitionValues(
      spark,
      dataSchema,
      partitionSchema,
      required,
      Nil,
      options,
      spark.sessionState.newHadoopConfWithOptions(options)
    )
    val produced = required.fields ++ partitionSchema.fields
    val columns = output.fields.map { f =>
      val i = produced.indexWhere(_.name == f.name)
      if (i < 0) {
        throw new IllegalStateException(
          s"The stream's column ${f.name} is not among the columns its reader gives: " +
            produced.map(_.name).mkString(", ")
        )
      }
      (i, f.dataType, produced(i).nullable)
    }
    new BatchReaderFactory(read, columns)
  }
}

/** Reads the files of a [[FilePartition]] one after the other with `read`, each row projected to
  * the stream's columns (`columns`: the index of each in the row `read` gives, its type, and
  * whether it may be null).
  */
private[txlog] final class BatchReaderFactory(
    read: PartitionedFile => Iterator[InternalRow],
    columns: Array[(Int, DataType, Boolean)]
) extends PartitionReaderFactory {

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val project = UnsafeProjection.create(columns.toSeq.map { case (i, t, nullable) =>
      BoundReference(i, t, nullable)
    })
    val files = partition match {
      case p: FilePartition => p.files
      case other =>
        throw new IllegalStateException(s"A txlog stream reads file partitions, not $other")
    }
    val rows = files.iterator.flatMap(read).map(project)
    new PartitionReader[InternalRow] {
      private var row: InternalRow = _
      override def next(): Boolean = rows.hasNext && { row = rows.next(); true }
      override def get(): InternalRow = row
      // the parquet readers close when the task completes, as in Spark's file scans
      override def close(): Unit = ()
    }
  }
}
