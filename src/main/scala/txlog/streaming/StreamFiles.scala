package txlog.streaming

import org.apache.spark.sql.{Column, DataFrame, Row, SparkSession}
import org.apache.spark.sql.execution.datasources.PartitionDirectory
import org.apache.spark.sql.functions.col

import txlog.Metadata
import txlog.scan.{ReadSpec, ScanFiles, TableParquetFormat}

/** The files a micro-batch of a stream reads, as rows of add actions in the layout
  * [[txlog.scan.ScanFiles]] reads files by (path, size, modificationTime, deletion vector, typed
  * partition values, an unparsed partition value, baseRowId, defaultRowCommitVersion) followed by
  * the file's `version` and `index` in the stream; and how a micro-batch reads them: as directories
  * of Spark's file source, by txlog's table reader (column mapping, deletion vectors applied).
  *
  * {{{
  * StreamFiles.reader(spark, spec).partitions(StreamFiles.directories(spec, rows))
  * }}}
  */
private[txlog] object StreamFiles {

  val Version = "version"
  val Index = "index"

  /** The columns of a file's row from the add action `add` (a struct column) under `md`
    * ([[txlog.scan.ScanFiles.fileColumns]]); row tracking's with `rowTracking`.
    */
  def columns(add: Column, md: Metadata, rowTracking: Boolean): Seq[Column] =
    ScanFiles.fileColumns(add, md, rowTracking)

  private val SizeAt = 1
  private val VersionAt = 8
  private val IndexAt = 9

  def size(r: Row): Long = r.getLong(SizeAt)
  def version(r: Row): Long = r.getLong(VersionAt)
  def index(r: Row): Long = r.getLong(IndexAt)

  /** The rows of `df` (files in the layout above) ordered by version and index. */
  def ordered(df: DataFrame): DataFrame = df.orderBy(col(Version), col(Index))

  /** The directories of the files `rows` (in the layout above) of `table`, as a batch reads them. A
    * partition value that does not parse is MALFORMED_LOG_FILE naming the file.
    */
  def directories(table: ReadSpec, rows: Seq[Row]): Seq[PartitionDirectory] = {
    rows.groupBy(version).toSeq.sortBy(_._1).foreach { case (v, of) =>
      ScanFiles.refuseUnparsed(table.root, v, of, 0, 5)
    }
    ScanFiles.directories(table.root, table.partitionSchema, rows.toArray).directories
  }

  /** The reader of a stream of `table`'s rows: txlog's table reader (column mapping, deletion
    * vectors applied), the table's columns in schema order.
    */
  def reader(spark: SparkSession, table: ReadSpec): BatchReader =
    new BatchReader(
      spark,
      new TableParquetFormat(table),
      table.dataSchema,
      table.partitionSchema,
      table.dataSchema
    )
}
