package txlog.replay

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}

import txlog.log.{LogFile, TablePath}
import txlog.util.Jobs

/** The actions of the commits (and log compactions) after a checkpoint, parsed against the full
  * commit-line schema. A tail small enough to read on the driver (see [[LogLineReader]]) is parsed
  * once and kept as rows, so that it is reconciled without a shuffle; a larger one stays a
  * distributed DataFrame, reconciled by a window function.
  */
private[txlog] sealed trait TailActions {

  /** The parsed actions: version, idx, file, one column per action, `_corrupt_record`. */
  def df: DataFrame
  def deltas: Seq[LogFile]
}

/** A small tail, parsed and held on the driver; `df` is a local relation over `rows`. */
private[txlog] final case class LocalTail(
    rows: IndexedSeq[Row],
    df: DataFrame,
    deltas: Seq[LogFile]
) extends TailActions

/** A large tail, read and parsed by tasks. */
private[txlog] final case class DistributedTail(df: DataFrame, deltas: Seq[LogFile])
    extends TailActions

private[txlog] object TailActions {
  def read(spark: SparkSession, table: TablePath, deltas: Seq[LogFile]): TailActions = {
    val parsed = LogActions.tail(spark, table, deltas)
    if (!LogLineReader.isLocal(spark, deltas.map(_.file.size).sum)) {
      DistributedTail(parsed, deltas)
    } else {
      val rows = Jobs.named(spark, s"parse ${deltas.size} commits of ${table.root}") {
        parsed.collect().toIndexedSeq
      }
      LocalTail(rows, spark.createDataFrame(rows.asJava, parsed.schema), deltas)
    }
  }
}
