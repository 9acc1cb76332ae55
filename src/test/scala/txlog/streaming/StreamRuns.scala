package txlog.streaming

import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.streaming.{StreamingQuery, StreamingQueryException, Trigger}

import txlog.TxlogException
import txlog.scan.Rows

/** Runs of streams for the streaming suites: a stream of a table by `format` (`delta` or `txlog`)
  * drained with Trigger.AvailableNow into `foreachBatch`, each batch's rows kept (sorted, as text),
  * or the error that stopped it.
  */
object StreamRuns {

  /** The outcome of one run: the non-empty batches' rows, in batch order, or the error. */
  type Outcome = Either[Throwable, Seq[Seq[String]]]

  def drain(
      spark: SparkSession,
      format: String,
      path: String,
      checkpoint: String,
      options: Map[String, String] = Map.empty
  ): Outcome = drain(spark.readStream.format(format).options(options).load(path), checkpoint)

  /** The stream `stream` drained as above. */
  def drain(stream: DataFrame, checkpoint: String): Outcome = {
    val batches = new ConcurrentLinkedQueue[(Long, Seq[String])]
    val keep: (DataFrame, Long) => Unit = (df, id) => { batches.add(id -> Rows.sorted(df)); () }
    try {
      val q = stream.writeStream
        .option("checkpointLocation", checkpoint)
        .trigger(Trigger.AvailableNow())
        .foreachBatch(keep)
        .start()
      q.awaitTermination()
      Right(batches.asScala.toSeq.sortBy(_._1).map(_._2).filter(_.nonEmpty))
    } catch {
      case e: StreamingQueryException => Left(e.getCause)
    }
  }

  /** A stream of `format` over `path` running (default trigger) into `foreachBatch`, and the rows
    * of its batches as they come (batch id, sorted rows as text).
    */
  def running(
      spark: SparkSession,
      format: String,
      path: String,
      checkpoint: String,
      options: Map[String, String] = Map.empty
  ): (StreamingQuery, ConcurrentLinkedQueue[(Long, Seq[String])]) = {
    val batches = new ConcurrentLinkedQueue[(Long, Seq[String])]
    val keep: (DataFrame, Long) => Unit = (df, id) => { batches.add(id -> Rows.sorted(df)); () }
    val q = spark.readStream
      .format(format)
      .options(options)
      .load(path)
      .writeStream
      .option("checkpointLocation", checkpoint)
      .foreachBatch(keep)
      .start()
    (q, batches)
  }

  /** txlog's error in `e`'s causes, if any. */
  def txlogError(e: Throwable): Option[TxlogException] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst { case t: TxlogException =>
      t
    }
}
