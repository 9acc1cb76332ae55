package txlog.streaming

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.execution.streaming.Offset

import txlog.errors.TxlogErrors

/** Where a stream of a table stands: every file before (`version`, `index`) has been read. In the
  * initial snapshot (`initialSnapshot`), `version` is the snapshot's and `index` the last file read
  * in its order (-1: none yet); past it, `index` is the line of the last add read in commit
  * `version` (-1: none of that version yet). Ordered by (`initialSnapshot` first, `version`,
  * `index`). Written as JSON with a format version (`sourceVersion`) and the table's id, so that a
  * checkpoint is never resumed against another table.
  *
  * {{{
  * StreamOffset("0f5c...", 4L, 17L, initialSnapshot = false).json
  * // {"sourceVersion":1,"tableId":"0f5c...","version":4,"index":17,"isInitialSnapshot":false}
  * }}}
  */
private[txlog] final case class StreamOffset(
    tableId: String,
    version: Long,
    index: Long,
    initialSnapshot: Boolean
) extends Offset {

  override val json: String =
    s"""{"sourceVersion":${StreamOffset.FormatVersion},"tableId":""" +
      StreamOffset.quoted(tableId) +
      s""","version":$version,"index":$index,"isInitialSnapshot":$initialSnapshot}"""

  /** Whether this offset is at or after `other` (the same table's). */
  def notBefore(other: StreamOffset): Boolean =
    if (initialSnapshot != other.initialSnapshot) !initialSnapshot
    else version > other.version || (version == other.version && index >= other.index)

  override def toString: String =
    if (initialSnapshot) s"initial snapshot of version $version, file $index"
    else s"version $version, index $index"
}

private[txlog] object StreamOffset {

  val FormatVersion = 1

  private val mapper = new ObjectMapper()

  private def quoted(text: String): String = mapper.writeValueAsString(text)

  /** The offset in `offset` (as Spark hands it back from a checkpoint) of the table `root` whose id
    * is `tableId`: a format txlog does not know, or another table's offset, is
    * STREAMING_OFFSET_INVALID naming the checkpoint's offset.
    */
  def of(
      offset: org.apache.spark.sql.connector.read.streaming.Offset,
      root: String,
      tableId: String
  ): StreamOffset = offset match {
    case o: StreamOffset => checked(o, root, tableId)
    case o               => parse(o.json(), root, tableId)
  }

  def parse(json: String, root: String, tableId: String): StreamOffset = {
    val node =
      try mapper.readTree(json)
      catch {
        case e: java.io.IOException =>
          throw TxlogErrors.offsetInvalid(root, json, s"it is not JSON (${e.getMessage}).")
      }
    def field(name: String) = Option(node.get(name)).filterNot(_.isNull).getOrElse {
      throw TxlogErrors.offsetInvalid(root, json, s"it has no '$name'.")
    }
    val format = field("sourceVersion")
    if (!format.canConvertToInt || format.asInt != FormatVersion) {
      throw TxlogErrors.offsetInvalid(
        root,
        json,
        s"its format version is $format; this txlog reads format $FormatVersion."
      )
    }
    def long(name: String) = {
      val n = field(name)
      if (!n.canConvertToLong || !n.isIntegralNumber) {
        throw TxlogErrors.offsetInvalid(root, json, s"'$name' is not a whole number.")
      }
      n.asLong
    }
    val initial = field("isInitialSnapshot")
    if (!initial.isBoolean) {
      throw TxlogErrors.offsetInvalid(root, json, "'isInitialSnapshot' is not true or false.")
    }
    val o = StreamOffset(field("tableId").asText, long("version"), long("index"), initial.asBoolean)
    checked(o, root, tableId)
  }

  private def checked(o: StreamOffset, root: String, tableId: String): StreamOffset = {
    if (o.tableId != tableId) {
      throw TxlogErrors.offsetInvalid(
        root,
        o.json,
        s"it is of the table with id ${o.tableId}; the table at $root has id $tableId. A " +
          "checkpoint belongs to one table: start the query with a new checkpoint location."
      )
    }
    if (o.version < 0 || o.index < -1) {
      throw TxlogErrors.offsetInvalid(root, o.json, "its version or index is out of range.")
    }
    o
  }
}
