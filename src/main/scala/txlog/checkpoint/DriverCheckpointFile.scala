package txlog.checkpoint

import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.{Job, JobID, TaskAttemptID, TaskID, TaskType}
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, GenericInternalRow}
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.txlog.SparkPlans
import org.apache.spark.sql.types.StructType

import txlog.Snapshot
import txlog.log.TablePath
import txlog.protocol.ActionSchemas

/** A classic parquet checkpoint of a small snapshot, written on the driver without a Spark job: the
  * snapshot's file actions streamed on the driver (its checkpoint read there, its tail's winners
  * held there), turned into the checkpoint's rows by [[CheckpointContent]]'s own expressions over a
  * local relation (Spark's optimizer evaluates them there), and written by Spark's parquet writer,
  * the same writer and settings a task of the job would use. A commit that checkpoints every tenth
  * version pays no job's fixed cost.
  *
  * Only where the job would write the file in one task (a log of at most
  * `spark.txlog.checkpoint.maxOneTaskLogBytes`) and with at most [[MaxFileActions]] file actions
  * (adds and removes, expired ones included), so the driver holds little; otherwise, or when a row
  * is not evaluated on the driver (a rule of the optimizer turned off), the caller runs the job.
  *
  * {{{
  * if (!DriverCheckpointFile.write(spark, snapshot, content, nonFile, table, staged)) runJob()
  * }}}
  */
private[txlog] object DriverCheckpointFile {

  /** The most file actions (adds and removes) a checkpoint written on the driver holds. */
  val MaxFileActions = 10000

  /** Writes the checkpoint of `snapshot` (`nonFile`, its non-file rows, then `content`'s file rows)
    * to `target` as one parquet file; false when it is not written here (nothing is written then).
    * A failure while writing propagates (the caller's staging is deleted).
    */
  def write(
      spark: SparkSession,
      snapshot: Snapshot,
      content: CheckpointContent,
      nonFile: DataFrame,
      table: TablePath,
      target: Path,
      options: Map[String, String]
  ): Boolean = {
    val parts = snapshot.driverFileActions.flatMap(fileActions(spark, _)).flatMap { source =>
      val files = content.fileRows(parquet = true, source)
      val schema = CheckpointContent.union(Seq(nonFile, files)).schema
      for (n <- localRows(nonFile); f <- localRows(files))
        yield (schema, Seq(nonFile.schema -> n, files.schema -> f))
    }
    parts.exists { case (schema, rows) =>
      val writer = open(spark, table, target, schema, options)
      try {
        rows.foreach { case (part, data) =>
          val put = new Placer(part, schema)
          data.foreach(r => writer.write(put(r)))
        }
      } finally writer.close()
      true
    }
  }

  /** The snapshot's file actions (`add`, `remove`, whole) as a local relation; None past
    * [[MaxFileActions]] or when the driver cannot read them.
    */
  private def fileActions(
      spark: SparkSession,
      actions: txlog.replay.DriverFileActions
  ): Option[DataFrame] = {
    val schema = ActionSchemas.fileActions
    val toRow = CatalystTypeConverters.createToCatalystConverter(schema)
    val rows = Vector.newBuilder[InternalRow]
    var n = 0
    val read =
      try {
        actions.foreachFull(spark) { (add, remove) =>
          n += 1
          if (n > MaxFileActions) throw TooMany
          rows += toRow(Row(add, remove)).asInstanceOf[InternalRow]
        }
      } catch { case TooMany => false }
    if (!read) None
    else {
      val output =
        schema.fields.toSeq.map(f => AttributeReference(f.name, f.dataType, f.nullable)())
      Some(SparkPlans.dataFrame(spark, LocalRelation(output, rows.result())))
    }
  }

  /** More file actions than [[MaxFileActions]]: the job writes them. */
  private object TooMany extends RuntimeException with scala.util.control.NoStackTrace

  /** The rows of `df` when Spark's optimizer computed them on the driver (a local relation). */
  private def localRows(df: DataFrame): Option[Seq[InternalRow]] =
    df.queryExecution.optimizedPlan match {
      case l: LocalRelation => Some(l.data)
      case _                => None
    }

  /** A row of one part put in the checkpoint's columns (by name; the others null). */
  private final class Placer(part: StructType, all: StructType) {
    private val from = all.fieldNames.map(n => part.fieldNames.indexOf(n))
    private val types = part.fields.map(_.dataType)
    def apply(r: InternalRow): InternalRow = {
      val out = new GenericInternalRow(from.length)
      var i = 0
      while (i < from.length) {
        val j = from(i)
        if (j >= 0 && !r.isNullAt(j)) out.update(i, r.get(j, types(j)))
        i += 1
      }
      out
    }
  }

  /** Spark's parquet writer for one file at `target`, configured as a write task would be:
    * `options` on the session's Hadoop configuration, and the table's read options (no `.crc` side
    * files on a local disk).
    */
  private def open(
      spark: SparkSession,
      table: TablePath,
      target: Path,
      schema: StructType,
      options: Map[String, String]
  ) = {
    val all = table.readOptions ++ options
    val job = Job.getInstance(spark.sessionState.newHadoopConfWithOptions(all))
    val factory = new ParquetFileFormat().prepareWrite(spark, job, all, schema)
    val attempt = new TaskAttemptID(new TaskID(new JobID("txlog", 0), TaskType.MAP, 0), 0)
    val context = new TaskAttemptContextImpl(job.getConfiguration, attempt)
    factory.newInstance(target.toString, schema, context)
  }
}
