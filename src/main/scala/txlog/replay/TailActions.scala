package txlog.replay

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import txlog.TxlogErrors
import txlog.actions.ActionSchemas
import txlog.log.{LogFile, TablePath}

/** The actions of the commits (and log compactions) after a checkpoint, parsed against the full
  * commit-line schema. A tail small enough to read on the driver (see [[LogLineReader]]) is read
  * and parsed there, without a Spark job, and kept as rows, so that it is reconciled without a
  * shuffle; a larger one stays a distributed DataFrame, reconciled by a window function.
  */
private[txlog] sealed trait TailActions {

  /** The parsed actions: version, idx, file, one column per action, `_corrupt_record`. A line that
    * is not valid JSON, or a non-file action with fields of the wrong types, is corrupt.
    */
  def df: DataFrame
  def deltas: Seq[LogFile]
}

/** A small tail, parsed on the driver (a malformed line has already failed the read); `df` is a
  * local relation over `rows`, built only when asked for.
  */
private[txlog] final class LocalTail(
    spark: SparkSession,
    val rows: IndexedSeq[Row],
    val deltas: Seq[LogFile]
) extends TailActions {
  lazy val df: DataFrame = spark.createDataFrame(rows.asJava, TailActions.localSchema)
}

/** A large tail, read and parsed by tasks; `df` parses only what non-file state needs
  * ([[ActionSchemas.stateLine]]): file actions are parsed (and checked) by the file state's own
  * job.
  */
private[txlog] final case class DistributedTail(df: DataFrame, deltas: Seq[LogFile])
    extends TailActions

private[txlog] object TailActions {

  /** The shape of [[LogActions.tail]]'s rows for the commit-line schema. */
  val localSchema: StructType = StructType(
    new StructType()
      .add("version", LongType, nullable = false)
      .add("idx", LongType, nullable = false)
      .add("file", StringType, nullable = false)
      .fields ++ ActionSchemas.commitLine.fields
  ).add(LogActions.CorruptColumn, StringType)

  def read(spark: SparkSession, table: TablePath, deltas: Seq[LogFile]): TailActions = {
    val files = deltas.map(d => d.version -> d.file)
    if (!LogLineReader.isLocal(spark, files.map(_._2.size).sum)) {
      DistributedTail(LogActions.tail(spark, table, deltas, ActionSchemas.stateLine), deltas)
    } else {
      val parser =
        new LineParser(ActionSchemas.commitLine, spark.conf.get("spark.sql.session.timeZone"))
      val rows = LogLineReader.readLocal(table, files).map { line =>
        val (version, idx, file) = (line.getLong(0), line.getLong(1), line.getString(2))
        val text = line.getString(3)
        val action = parser.parse(text).getOrElse {
          throw TxlogErrors.malformedLogFile(file, version, NonFileState.invalidLine(idx, text))
        }
        new GenericRowWithSchema(
          (Seq[Any](version, idx, file) ++ action.toSeq :+ null).toArray,
          localSchema
        ): Row
      }
      new LocalTail(spark, rows.toIndexedSeq, deltas)
    }
  }
}
