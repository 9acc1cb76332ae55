package txlog.streaming

import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession

/** Where a stream started, kept in the query's checkpoint (the source's directory in it, as Spark
  * hands it to the stream, `checkpoint`) in the file `initial-offset.json`. Spark asks a DSv2
  * stream for its initial offset again after a restart until its first batch is done, and the start
  * may depend on when it is asked (the initial snapshot is the latest version; `startingVersion` =
  * latest): the stream writes it with its first batch ([[write]]: a temporary file renamed into
  * place, a file already there wins) and reads it back after a restart ([[read]]). An offset there
  * of another table, or one that does not parse, is STREAMING_OFFSET_INVALID naming it.
  *
  * {{{
  * val file = new StreamStart(spark, "/chk/sources/0", root, tableId)
  * file.read().getOrElse(file.write(StreamOffset(tableId, 7, -1, initialSnapshot = true)))
  * }}}
  */
private[txlog] final class StreamStart(
    spark: SparkSession,
    checkpoint: String,
    root: String,
    tableId: String
) {

  private val dir = new Path(checkpoint)
  private lazy val fs = dir.getFileSystem(spark.sessionState.newHadoopConf())
  private val file = new Path(dir, StreamStart.FileName)

  /** The start the checkpoint holds, if any. */
  def read(): Option[StreamOffset] =
    if (!fs.exists(file)) None
    else {
      val in = fs.open(file)
      val text =
        try new String(in.readAllBytes(), UTF_8)
        finally in.close()
      Some(StreamOffset.parse(text, root, tableId))
    }

  /** Writes `start` unless a start is there already; the start the checkpoint then holds. */
  def write(start: StreamOffset): StreamOffset = read().getOrElse {
    fs.mkdirs(dir)
    val tmp = new Path(dir, s".${StreamStart.FileName}.${UUID.randomUUID()}.tmp")
    val out = fs.create(tmp, false)
    try out.write(start.json.getBytes(UTF_8))
    finally out.close()
    // a false rename: a start is there already (another attempt's), and it is the start
    if (!fs.rename(tmp, file)) fs.delete(tmp, false)
    read().getOrElse(start)
  }
}

private[txlog] object StreamStart {
  val FileName = "initial-offset.json"
}
