package txlog.streaming

import org.apache.spark.sql.{Column, DataFrame, Row, SparkSession}
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.sources.BaseRelation
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.txlog.SparkPlans

import txlog.Metadata
import txlog.scan.{ReadSpec, ScanFiles, TableParquetFormat}
import txlog.util.FixedFileIndex

/** The files a micro-batch of a stream reads, as rows of add actions in the layout
  * [[txlog.scan.ScanFiles]] reads files by (path, size, modificationTime, deletion vector, typed
  * partition values, an unparsed partition value, baseRowId, defaultRowCommitVersion) followed by
  * the file's `version` and `index` in the stream; and the micro-batch itself: Spark's file source
  * over those files read by txlog's table reader (column mapping, deletion vectors applied), its
  * plan marked streaming.
  *
  * {{{
  * val df = StreamFiles.batch(spark, ReadSpec(snapshot), rows, "versions 3 to 5")
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

  /** The micro-batch reading the files `files` gives (rows in the layout above) with `table`'s
    * reader, worked out when Spark plans the batch's scan: a batch Spark asks for and never runs
    * (the last one before a restart, which Spark asks for again on restart) reads no log. A
    * partition value that does not parse is MALFORMED_LOG_FILE naming the file.
    */
  def batch(
      spark: SparkSession,
      table: ReadSpec,
      files: () => Seq[Row],
      label: String
  ): DataFrame = {
    val selection = () => {
      val rows = files()
      rows.groupBy(version).toSeq.sortBy(_._1).foreach { case (v, of) =>
        ScanFiles.refuseUnparsed(table.root, v, of, 0, 5)
      }
      val s = ScanFiles.directories(table.root, table.partitionSchema, rows.toArray)
      (s.directories, s.bytes)
    }
    val relation = HadoopFsRelation(
      location = new FixedFileIndex(Seq(table.root), label, table.partitionSchema, selection),
      partitionSchema = table.partitionSchema,
      dataSchema = table.dataSchema,
      bucketSpec = None,
      fileFormat = new TableParquetFormat(table),
      options = Map.empty
    )(spark)
    streamingFrame(spark, relation)
  }

  /** `relation` as the DataFrame of a streaming source's batch (its plan marked streaming). */
  def streamingFrame(spark: SparkSession, relation: BaseRelation): DataFrame =
    SparkPlans.dataFrame(spark, LogicalRelation(relation, isStreaming = true))
}
