package txlog.write

import java.util.UUID

import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.{Job, TaskAttemptID, TaskID, TaskType}
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl
import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}
import org.apache.spark.sql.execution.datasources.{OutputWriter, OutputWriterFactory}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.functions.{col, lit, to_json}
import org.apache.spark.sql.types._

import txlog.errors.TxlogErrors
import txlog.log.TablePath
import txlog.util.{Jobs, SerializableConf}

/** What one write job wrote: one entry per data file, shaped as add actions (`path` relative to the
  * table root and URI-encoded, `partitionValues`, `size`, `modificationTime`, `dataChange`, `stats`
  * as JSON), with the rows it holds.
  */
private[txlog] final case class WrittenFiles(
    adds: DataFrame,
    numFiles: Long,
    rows: Long,
    bytes: Long,
    files: Seq[WrittenFile] = Nil
)

/** One file a write job wrote: its add (shaped as [[DataFiles.AddSchema]]), its rows, and the index
  * of the input partition it came from (OPTIMIZE's bin: one per partition).
  */
private[txlog] final case class WrittenFile(add: Row, numRecords: Long, bin: Int)

/** Where a write's files go: the table's partition columns (logical names, as in the written
  * DataFrame), the keys of their values in `partitionValues` (physical names), and the length of
  * the random directory files go under instead of partition directories, if any; whether the adds
  * change data (false for OPTIMIZE's); whether the files are change data files ("Change Data
  * Files": under `_change_data/`, named `cdc-...`, as delta-spark names them).
  */
private[txlog] final case class FileLayout(
    partitionColumns: Seq[String],
    partitionKeys: Seq[String],
    randomPrefix: Option[Int],
    dataChange: Boolean = true,
    changeData: Boolean = false
)

/** The Spark job writing a DataFrame's rows as parquet data files under a table's root: one file
  * per task and partition (rows sorted by partition values within each task, no shuffle), named
  * `part-<task>-<uuid>.c000<ext>` in the partition's `col=value` directory (or a random prefix
  * directory under `delta.randomizeFilePrefixes`), with the file's statistics gathered as its rows
  * are written. The files' entries reach the driver once the job has finished (one small row per
  * file written, so bounded by the job's own output, never by the table); a failed task's files are
  * never named in the log (vacuum removes them).
  */
private[txlog] object DataFiles {

  /** Column names the written entries have, in order. */
  val AddSchema: StructType = new StructType()
    .add("path", StringType, nullable = false)
    .add("partitionValues", MapType(StringType, StringType, valueContainsNull = true))
    .add("size", LongType, nullable = false)
    .add("modificationTime", LongType, nullable = false)
    .add("dataChange", BooleanType, nullable = false)
    .add("stats", StringType)

  /** Writes `df` (columns in table order, the table's logical names) under `table`, as `plan` says
    * (its `fileSchema`: `df`'s columns but the partition columns, with the names and metadata the
    * data files get).
    * @param checks
    *   the names of the row checks whose boolean columns end `df` ([[RowChecks.withChecks]]): a row
    *   failing one aborts the job with CONSTRAINT_VIOLATION
    */
  def write(df: DataFrame, table: TablePath, plan: FilePlan, checks: Seq[String]): WrittenFiles = {
    val sortBy = plan.layout.partitionColumns
    val sorted =
      if (sortBy.isEmpty) df
      else df.sortWithinPartitions(sortBy.map(c => col(RowChecks.quote(c))): _*)
    writeRows(df.sparkSession, sorted.queryExecution.toRdd, df.schema, table, plan, checks)
  }

  /** [[write]] of rows of `schema` already in file order: in each partition, those of one file
    * (their partition values) together. OPTIMIZE's bins, one per partition, need no sort.
    */
  def writeRows(
      spark: SparkSession,
      input: RDD[InternalRow],
      schema: StructType,
      table: TablePath,
      plan: FilePlan,
      checks: Seq[String]
  ): WrittenFiles = {
    val spec = TaskSpec(spark, schema, table, plan, checks)
    val rows = input.mapPartitionsWithIndex { (part, it) =>
      val task = spec.task(part)
      task.run(it)
    }
    val collected = Jobs.named(spark, s"write data files to ${table.root}") {
      try spec.described(spark.createDataFrame(rows, spec.outSchema)).collect()
      catch {
        // a typed error raised by a task (a NOT NULL column's null) reaches the caller as itself
        case e: org.apache.spark.SparkException if typedCause(e).isDefined =>
          throw typedCause(e).get
      }
    }
    written(spark, collected.toSeq)
  }

  /** The [[WrittenFiles]] of the rows [[TaskSpec.described]] gives. */
  def written(spark: SparkSession, collected: Seq[Row]): WrittenFiles = {
    val files = collected.map { r =>
      WrittenFile(Row.fromSeq(r.toSeq.dropRight(2)), r.getLong(6), r.getInt(7))
    }
    WrittenFiles(
      addsOf(spark, files),
      files.size.toLong,
      files.map(_.numRecords).sum,
      files.map(_.add.getLong(2)).sum,
      files
    )
  }

  /** The add actions of `files`, as a DataFrame of [[AddSchema]]. */
  def addsOf(spark: org.apache.spark.sql.SparkSession, files: Seq[WrittenFile]): DataFrame =
    spark.createDataFrame(java.util.Arrays.asList(files.map(_.add): _*), AddSchema)

  private def typedCause(e: Throwable): Option[txlog.TxlogException] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(10).collectFirst {
      case t: txlog.TxlogException => t
    }

  /** What a task needs to write a table's files, made on the driver and sent to the tasks: rows of
    * `schema` (the table's columns in table order, then the boolean columns of `checks`) written as
    * `plan` says.
    */
  final class TaskSpec private (
      root: String,
      conf: SerializableConf,
      factory: OutputWriterFactory,
      plan: FilePlan,
      jobId: String,
      schema: StructType,
      checks: Seq[String]
  ) extends Serializable {

    /** The rows a task returns per file written (see [[described]]). */
    def outSchema: StructType = new StructType()
      .add("path", StringType)
      .add("partitionValues", MapType(StringType, StringType, valueContainsNull = true))
      .add("size", LongType)
      .add("modificationTime", LongType)
      .add("numRecords", LongType)
      .add("statsStruct", plan.stats.schema(plan.tightBounds))
      .add("bin", IntegerType)

    /** The tasks' rows (of [[outSchema]]) as add entries ([[AddSchema]]), then `numRecords` and
      * `bin`.
      */
    def described(rows: DataFrame): DataFrame = rows.select(
      col("path"),
      col("partitionValues"),
      col("size"),
      col("modificationTime"),
      lit(plan.layout.dataChange).as("dataChange"),
      to_json(col("statsStruct")).as("stats"),
      col("numRecords"),
      col("bin")
    )

    /** The writing of task (input partition) `part`. */
    def task(part: Int): TaskWrite = {
      val FilePlan(layout, dataColumns, stats, tightBounds, tableSchema) = plan
      val numColumns = schema.size - checks.size
      val columns = StructType(schema.fields.take(numColumns))
      val partOrdinals = layout.partitionColumns.map(columns.fieldIndex)
      new TaskWrite(
        root,
        conf,
        factory,
        dataColumns,
        stats,
        tightBounds,
        part,
        jobId,
        layout,
        partOrdinals.map(schema(_).dataType),
        partOrdinals,
        columns.fields.indices.filterNot(partOrdinals.contains),
        schema,
        NullChecks.of(tableSchema, columns),
        checks.indices.map(numColumns + _).toArray.zip(checks)
      )
    }
  }

  object TaskSpec {

    /** The spec of writing rows of `schema` (the check columns of `checks` last, by position: a
      * table column may have any name) under `table` as `plan` says.
      */
    def apply(
        spark: SparkSession,
        schema: StructType,
        table: TablePath,
        plan: FilePlan,
        checks: Seq[String]
    ): TaskSpec = {
      val job = Job.getInstance(table.fs.getConf)
      val factory =
        new ParquetFileFormat().prepareWrite(spark, job, table.readOptions, plan.fileSchema)
      val conf = new SerializableConf(job.getConfiguration)
      new TaskSpec(
        table.root,
        conf,
        factory,
        plan,
        UUID.randomUUID().toString.take(8),
        schema,
        checks
      )
    }
  }

  /** One task's writing: files open one at a time (rows arrive sorted by partition values); fed all
    * at once ([[run]]) or a row at a time ([[add]], then [[finish]], or [[abort]]).
    */
  final class TaskWrite private[DataFiles] (
      root: String,
      conf: SerializableConf,
      factory: OutputWriterFactory,
      dataColumns: StructType,
      stats: StatsSpec,
      tightBounds: Boolean,
      part: Int,
      jobId: String,
      layout: FileLayout,
      partTypes: Seq[DataType],
      partOrdinals: Seq[Int],
      dataOrdinals: Seq[Int],
      schema: StructType,
      nulls: NullChecks,
      checks: Array[(Int, String)]
  ) {
    private val partitionColumns = layout.partitionColumns
    private val project = UnsafeProjection.create(
      dataOrdinals.map(i => BoundReference(i, schema(i).dataType, schema(i).nullable))
    )
    private val context = {
      val tc = Option(TaskContext.get())
      val attempt = tc.map(_.attemptNumber()).getOrElse(0)
      val id = new TaskAttemptID(new TaskID(jobId, 0, TaskType.MAP, part), attempt)
      new TaskAttemptContextImpl(conf.value, id)
    }
    private val ext = factory.getFileExtension(context)
    private val out = Vector.newBuilder[Row]
    private var writer: OutputWriter = null
    private var current: Seq[Option[String]] = null
    private val partitionKey = UnsafeProjection.create(
      partOrdinals.map(i => BoundReference(i, schema(i).dataType, schema(i).nullable))
    )
    private var currentKey: org.apache.spark.sql.catalyst.expressions.UnsafeRow = null
    private var relative: String = null
    private var fileStats: FileStatistics = null

    def run(rows: Iterator[InternalRow]): Iterator[Row] = {
      try rows.foreach(add)
      catch {
        case e: Throwable =>
          abort()
          throw e
      }
      finish().iterator
    }

    /** Writes `row` (checked: NOT NULL, the check columns). */
    def add(row: InternalRow): Unit = {
      if (!nulls.isEmpty) nulls.violation(row).foreach { path =>
        throw TxlogErrors.constraintViolation(root, s"NOT NULL $path", describe(row))
      }
      var i = 0
      while (i < checks.length) {
        if (!row.getBoolean(checks(i)._1)) {
          throw TxlogErrors.constraintViolation(root, checks(i)._2, describe(row))
        }
        i += 1
      }
      // partition values compared in Spark's binary form; their text made once per file
      val key = partitionKey(row)
      if (writer == null || key != currentKey) {
        close()
        currentKey = key.copy()
        val values = partOrdinals.indices.map { k =>
          PartitionValueText.of(
            if (currentKey.isNullAt(k)) null else currentKey.get(k, partTypes(k)),
            partTypes(k)
          )
        }
        open(values)
      }
      val data = project(row)
      writer.write(data)
      fileStats.add(data)
    }

    /** Closes the last file; the entries of every file written (rows of [[TaskSpec.outSchema]]). */
    def finish(): Seq[Row] = {
      close()
      out.result()
    }

    /** After a failure: closes the open file quietly (a file no entry names is never committed). */
    def abort(): Unit = {
      if (writer != null)
        try writer.close()
        catch { case _: Throwable => () }
      writer = null
    }

    /** The table columns of `row`, as `name = value`, each value cut to 50 characters. */
    private def describe(row: InternalRow): String =
      schema.fields.indices
        .filter(i => dataOrdinals.contains(i) || partOrdinals.contains(i))
        .map { i =>
          val v = if (row.isNullAt(i)) "null" else String.valueOf(row.get(i, schema(i).dataType))
          s"${schema(i).name} = ${if (v.length > 50) v.take(50) + "..." else v}"
        }
        .mkString("(", ", ", ")")

    private def open(values: Seq[Option[String]]): Unit = {
      val kind = if (layout.changeData) "cdc" else "part"
      val name = f"$kind-$part%05d-${UUID.randomUUID()}.c000$ext"
      val dir = layout.randomPrefix match {
        case Some(n) => Some(scala.util.Random.alphanumeric.take(n).mkString)
        case None if partitionColumns.nonEmpty =>
          Some(PartitionValueText.directory(partitionColumns, values))
        case None => None
      }
      val under = if (layout.changeData) Some(FilePlan.ChangeDataDir) else None
      relative = (under.toSeq ++ dir.toSeq :+ name).mkString("/")
      current = values
      fileStats = new FileStatistics(stats)
      writer = factory.newInstance(new Path(root, relative).toString, dataColumns, context)
    }

    private def close(): Unit = if (writer != null) {
      writer.close()
      writer = null
      val path = new Path(root, relative)
      val status = path.getFileSystem(conf.value).getFileStatus(path)
      val pv = layout.partitionKeys.zip(current).toMap.map { case (k, v) => k -> v.orNull }
      out += Row(
        new Path(relative).toUri.toString,
        pv,
        status.getLen,
        status.getModificationTime,
        fileStats.numRecords,
        fileStats.toRow(tightBounds),
        part
      )
    }
  }
}
