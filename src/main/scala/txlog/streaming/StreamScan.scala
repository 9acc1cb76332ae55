package txlog.streaming

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.read.{Scan, ScanBuilder}
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.types.StructType

import txlog.DeltaLog

/** A stream of a table as Spark's DSv2 scan, by path (`spark.readStream.format("txlog")`) and by
  * name (the catalog's tables): `parameters` are the stream's options ([[StreamOptions]], the
  * table's path among them), `schema` the columns Spark planned the query with (the table's when it
  * was looked up, or the reader's `.schema(...)`). The stream itself ([[TableStreamSource]], or
  * [[ChangeStreamSource]] with `readChangeFeed`) reads the table's latest version when the query
  * starts: options it does not know, or a schema that is no longer the table's, fail the query
  * then, before anything is read (INVALID_ARGUMENT, SCHEMA_MISMATCH).
  *
  * {{{
  * new StreamScan(spark, Map("path" -> "/data/events"), schema).toMicroBatchStream("/chk/sources/0")
  * }}}
  */
private[txlog] final class StreamScan(
    spark: SparkSession,
    parameters: Map[String, String],
    schema: StructType
) extends Scan
    with ScanBuilder {

  override def build(): Scan = this

  override def readSchema(): StructType = schema

  override def description(): String = s"txlog stream ${parameters.getOrElse("path", "")}"

  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream =
    StreamScan.stream(spark, StreamOptions(parameters), Some(schema), checkpointLocation)
}

private[txlog] object StreamScan {

  /** The stream of the table the options name, at its latest version, checked against `schema`. */
  def stream(
      spark: SparkSession,
      options: StreamOptions,
      schema: Option[StructType],
      checkpoint: String
  ): SnapshotStream = {
    val log = DeltaLog.forTable(spark, options.path)
    val snapshot = log.snapshot()
    StreamSchema.of(snapshot, schema, options.readChangeFeed)
    if (options.readChangeFeed) {
      new ChangeStreamSource(log.context, options, snapshot, checkpoint)
    } else new TableStreamSource(log.context, options, snapshot, checkpoint)
  }

  /** The schema of the stream the options name (`parameters`), the table read at its latest
    * version.
    */
  def schema(spark: SparkSession, parameters: Map[String, String]): StructType = {
    val options = StreamOptions(parameters)
    val snapshot = DeltaLog.forTable(spark, options.path).snapshot()
    StreamSchema.of(snapshot, None, options.readChangeFeed)
  }
}
