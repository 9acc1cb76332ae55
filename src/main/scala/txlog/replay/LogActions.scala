package txlog.replay

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{
  FileStatusWithMetadata,
  HadoopFsRelation,
  PartitionDirectory
}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.functions._
import org.apache.spark.sql.txlog.{LogLineJson, SparkExpressions}
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import txlog.protocol.ActionSchemas
import txlog.log.{CheckpointInstance, TablePath}
import txlog.protocol.CheckpointNaming
import txlog.protocol.FileInfo
import txlog.protocol.LogFile
import txlog.util.FixedFileIndex

/** The actions of a log segment as DataFrames: the checkpoint's rows and the tail's parsed lines.
  * Every row carries `version` and `idx` (its order within the version), so that "the latest action
  * seen wins" can be decided by ordering on (version, idx).
  */
private[txlog] object LogActions {
  val CorruptColumn = "_corrupt_record"

  /** Parses JSON log lines against `schema` ([[LogLineJson]]: `from_json`'s parser, from the lines'
    * bytes). A line that is not valid JSON, or whose fields have the wrong types, keeps its text in
    * `_corrupt_record` so replay can name the file. With `keepLine` the text of every line is kept
    * too, as `line` (for rewrites that must not lose fields `schema` does not name).
    */
  def parseLines(lines: DataFrame, schema: StructType, keepLine: Boolean = false): DataFrame = {
    val withCorrupt = schema.add(CorruptColumn, StringType)
    val timeZone = lines.sparkSession.conf.get("spark.sql.session.timeZone")
    val parsed =
      LogLineJson(SparkExpressions.expression(col("line")), withCorrupt, CorruptColumn, timeZone)
    lines
      .select(
        col("version"),
        col("idx"),
        col("file"),
        SparkExpressions.column(parsed).as("a"),
        col("line")
      )
      .select(
        col("version") +: col("idx") +: col("file") +:
          (withCorrupt.fieldNames.toSeq.map(f => col(s"a.$f").as(f)) ++
            (if (keepLine) Seq(col("line")) else Nil)): _*
      )
  }

  /** Commits and log compactions after the checkpoint, parsed against `schema`. */
  def tail(
      spark: SparkSession,
      table: TablePath,
      deltas: Seq[LogFile],
      schema: StructType = ActionSchemas.commitLine,
      keepLine: Boolean = false
  ): DataFrame = parseLines(
    LogLineReader.read(spark, table, deltas.map(d => d.version -> d.file)),
    schema,
    keepLine
  )

  /** The rows of a checkpoint's top-level files (all parts of a multi-part one), with `version` set
    * to the checkpoint version and `idx` to -1: a checkpoint is already reconciled, so no ordering
    * among its rows is needed. Only the columns of `schema` are read; sidecars are read by
    * [[sidecars]].
    */
  def checkpoint(
      spark: SparkSession,
      table: TablePath,
      cp: CheckpointInstance,
      schema: StructType
  ): DataFrame = {
    val rows = if (cp.isJson) {
      parseLines(LogLineReader.read(spark, table, cp.files.map(f => cp.version -> f.file)), schema)
        .drop("idx", "file")
    } else {
      listedParquet(spark, table, cp.files.map(_.file), s"checkpoint ${cp.version}", schema)
        .withColumn(CorruptColumn, lit(null).cast(StringType))
    }
    rows.select(
      lit(cp.version).as("version") +: lit(-1L).as("idx") +:
        lit(cp.files.head.file.path).as("file") +:
        (schema.fieldNames.toSeq :+ CorruptColumn).map(col): _*
    )
  }

  /** Parquet files of the log as its listing found them (`files`: their sizes and times), read as
    * `schema`. Planning the scan asks the store nothing: `spark.read.parquet` would look each path
    * up again for every job over it (on S3A 6 HEADs and 2 listings a load of the bench's W1 table,
    * one after another on the driver). A file that vanished since it was listed fails the job
    * reading it, naming the file ([[ReadErrors]]).
    */
  def listedParquet(
      spark: SparkSession,
      table: TablePath,
      files: Seq[FileInfo],
      label: String,
      schema: StructType
  ): DataFrame = {
    val none = new StructType()
    val listed = PartitionDirectory(
      InternalRow.empty,
      files.map(f => FileStatusWithMetadata(f.status, Map.empty))
    )
    val index =
      new FixedFileIndex(files.map(_.path), label, none, Seq(listed), files.map(_.size).sum)
    val relation =
      HadoopFsRelation(index, none, schema, None, new ParquetFileFormat(), table.readOptions)(spark)
    spark.baseRelationToDataFrame(relation)
  }

  /** The add and remove actions (as `schema`) held in V2 checkpoint sidecars. */
  def sidecars(
      spark: SparkSession,
      table: TablePath,
      version: Long,
      files: Seq[String],
      schema: StructType
  ): DataFrame =
    spark.read
      .options(table.readOptions)
      .schema(schema)
      .parquet(files: _*)
      .select(lit(version).as("version"), lit(-1L).as("idx"), col("add"), col("remove"))
}
