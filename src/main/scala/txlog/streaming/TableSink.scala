package txlog.streaming

import java.util.Locale

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.streaming.Sink
import org.apache.spark.sql.streaming.OutputMode
import org.apache.spark.sql.txlog.SparkPlans

import txlog.{DeltaLog, WriteOptions, WriteResult}
import txlog.errors.TxlogErrors
import txlog.util.OptionValues
import txlog.write.{DataFrameWrite, StreamingUpdate}

/** The `txlog` streaming sink (`df.writeStream.format("txlog").start(path)`): each micro-batch is
  * one commit of txlog's writer (`DeltaLog.write`: statistics, schema checks, constraints,
  * generated columns, the table created by the first batch), carrying the application transaction
  * `txn(appId = the query's id, version = the batch's id)`. A batch the table already records (a
  * query restarted after its commit and before Spark's checkpoint) is not written again, as the
  * spec's "Transaction Identifiers" describe a streaming sink. Output mode `Append` appends,
  * `Complete` replaces every file of the table; the commit's operation is delta-spark's `STREAMING
  * UPDATE` ([[StreamingUpdate]]).
  *
  * {{{
  * query = events.writeStream.format("txlog").option("checkpointLocation", "/chk/events")
  *   .start("/data/events")
  * }}}
  */
private[txlog] final class TableSink(
    path: String,
    options: TableSink.Options,
    outputMode: String
) extends Sink {

  @volatile private var latest: Option[WriteResult] = None

  /** What the last batch this sink was handed did (None before the first). */
  private[txlog] def lastResult: Option[WriteResult] = latest

  override def addBatch(batchId: Long, data: DataFrame): Unit = {
    val spark = data.sparkSession
    val queryId = Option(spark.sparkContext.getLocalProperty(TableSink.QueryIdKey)).getOrElse {
      throw TxlogErrors.invalidArgument(
        "queryId",
        s"the txlog sink of $path was handed batch $batchId outside a streaming query."
      )
    }
    val ctx = DeltaLog.forTable(spark, path).context
    // a new table's properties; an existing one keeps its own
    val properties =
      if (DataFrameWrite.exists(ctx)) Map.empty[String, String] else options.properties
    val write = WriteOptions(
      mode = if (outputMode == "Complete") "overwrite" else "append",
      partitionBy = options.partitionBy,
      properties = properties,
      txnAppId = Some(queryId),
      txnVersion = Some(batchId),
      mergeSchema = options.mergeSchema
    )
    latest = Some(
      DataFrameWrite.write(
        ctx,
        SparkPlans.batchOf(data),
        write,
        dynamicPartitions = false,
        streaming = Some(StreamingUpdate(outputMode, queryId, batchId))
      )
    )
  }

  override def toString: String = s"TxlogSink[$path]"
}

private[txlog] object TableSink {

  /** The local property Spark sets to a streaming query's id (the same across its restarts). */
  val QueryIdKey = "sql.streaming.queryId"

  /** The options of the sink: `mergeSchema` (new columns of the stream added to the table),
    * `partitionBy` (Spark's `__partition_columns`) and `delta.*` properties of the table the first
    * batch creates. Spark's own (`path`, `checkpointLocation`, `queryName`) are passed over.
    */
  final case class Options(
      partitionBy: Seq[String],
      mergeSchema: Boolean,
      properties: Map[String, String]
  )

  private val Known = Set("path", "checkpointlocation", "queryname", "mergeschema")

  /** The sink for `parameters` (as Spark hands them to a provider) and `mode`; an option txlog does
    * not know, or an output mode other than `Append` and `Complete`, is INVALID_ARGUMENT before the
    * query starts.
    */
  def apply(
      parameters: Map[String, String],
      partitionColumns: Seq[String],
      mode: OutputMode
  ): TableSink = {
    val byName = parameters.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> v }
    byName.keys
      .filterNot(k => Known(k) || k.startsWith("delta."))
      .toSeq
      .sorted
      .headOption
      .foreach { k =>
        throw TxlogErrors.invalidArgument(
          k,
          "unknown option of the txlog streaming sink (it takes mergeSchema, partitionBy and " +
            "delta.* table properties)"
        )
      }
    val path = byName.getOrElse(
      "path",
      throw TxlogErrors.invalidArgument("path", "give the table's path: start(path).")
    )
    val outputMode = mode.toString.toLowerCase(Locale.ROOT) match {
      case "append"   => "Append"
      case "complete" => "Complete"
      case other =>
        throw TxlogErrors.invalidArgument(
          "outputMode",
          s"the txlog sink writes in Append or Complete mode, not $other (as delta-spark's)."
        )
    }
    val mergeSchema = OptionValues.flag(
      byName.get("mergeschema").map("mergeSchema" -> _).toMap,
      "mergeSchema",
      default = false
    )
    val original = parameters match {
      case c: org.apache.spark.sql.catalyst.util.CaseInsensitiveMap[String @unchecked] =>
        c.originalMap
      case other => other
    }
    val properties = original.filter { case (k, _) =>
      k.toLowerCase(Locale.ROOT).startsWith("delta.")
    }
    new TableSink(path, Options(partitionColumns, mergeSchema, properties), outputMode)
  }
}
