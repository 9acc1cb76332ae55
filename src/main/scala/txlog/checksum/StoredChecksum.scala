package txlog.checksum

import java.io.FileNotFoundException
import java.nio.charset.StandardCharsets.UTF_8

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.commons.io.IOUtils
import org.apache.hadoop.fs.Path

import txlog.errors.TxlogErrors
import txlog.log.TablePath
import txlog.protocol.FileNames

/** A version checksum file as read from `_delta_log`, checked for the shape the spec requires
  * (MALFORMED_LOG_FILE otherwise). Fields are kept as JSON and read through the accessors; unknown
  * fields are ignored.
  */
private[txlog] final class StoredChecksum private (
    val path: String,
    val version: Long,
    val json: ObjectNode
) {

  /** A present, non-null top-level field. */
  def field(name: String): Option[JsonNode] =
    Option(json.get(name)).filterNot(_.isNull)

  /** A whole-number field; MALFORMED_LOG_FILE when present but not a whole number. */
  def long(name: String): Option[Long] = field(name).map(n => asLong(n, name))

  /** A field the spec requires to be a whole number. */
  def requiredLong(name: String): Long =
    long(name).getOrElse(malformed(s"The required field '$name' is missing."))

  /** The file size histogram, under the spec's name or delta-spark's older `histogramOpt`. */
  val histogram: Option[(String, FileSizeHistogram)] =
    Seq("fileSizeHistogram", "histogramOpt").iterator
      .flatMap(n => field(n).map(n -> _))
      .find(_ => true)
      .map { case (name, node) => name -> toHistogram(name, node) }

  /** The deleted record counts of `deletedRecordCountsHistogramOpt`, when present. */
  val deletedRecordCounts: Option[IndexedSeq[Long]] =
    field("deletedRecordCountsHistogramOpt").map { h =>
      val name = "deletedRecordCountsHistogramOpt.deletedRecordCounts"
      val counts = longs(h.get("deletedRecordCounts"), name)
      if (counts.length != DeletedRecordCounts.LowerBounds.length) {
        malformed(s"'$name' must have ${DeletedRecordCounts.LowerBounds.length} elements.")
      }
      counts
    }

  /** The elements of an array field; MALFORMED_LOG_FILE when it is present but not an array. */
  def array(name: String): Option[Seq[JsonNode]] = field(name).map { n =>
    if (!n.isArray) malformed(s"'$name' must be an array.")
    n.elements().asScala.toSeq
  }

  /** An object field; MALFORMED_LOG_FILE when present but not an object. */
  def obj(name: String): Option[JsonNode] = field(name).map { n =>
    if (!n.isObject) malformed(s"'$name' must be an object.")
    n
  }

  private def toHistogram(name: String, node: JsonNode): FileSizeHistogram = {
    if (!node.isObject) malformed(s"'$name' must be an object.")
    val b = longs(node.get("sortedBinBoundaries"), s"$name.sortedBinBoundaries")
    val counts = longs(node.get("fileCounts"), s"$name.fileCounts")
    val bytes = longs(node.get("totalBytes"), s"$name.totalBytes")
    if (b.isEmpty || b.head != 0L || b.zip(b.tail).exists { case (x, y) => x >= y }) {
      malformed(s"'$name.sortedBinBoundaries' must start at 0 and increase strictly.")
    }
    if (counts.length != b.length || bytes.length != b.length) {
      malformed(s"'$name' arrays must all have ${b.length} elements.")
    }
    FileSizeHistogram(b, counts, bytes)
  }

  private def longs(node: JsonNode, name: String): IndexedSeq[Long] = {
    if (node == null || !node.isArray) malformed(s"'$name' must be an array of whole numbers.")
    node.elements().asScala.map(asLong(_, name)).toIndexedSeq
  }

  private def asLong(n: JsonNode, name: String): Long =
    if (n.isIntegralNumber && n.canConvertToLong) n.asLong()
    else malformed(s"'$name' must be a whole number, not ${ChecksumJson.render(n)}.")

  def malformed(detail: String): Nothing =
    throw TxlogErrors.malformedLogFile(path, version, s"Invalid version checksum: $detail")
}

private[txlog] object StoredChecksum {

  /** Reads `n.crc` of `table`: CHECKSUM_NOT_FOUND when absent, MALFORMED_LOG_FILE if bad. */
  def read(table: TablePath, version: Long): StoredChecksum = {
    val path = new Path(table.logDir, FileNames.checksumName(version))
    val text =
      try {
        val in = table.fs.open(path)
        try IOUtils.toString(in, UTF_8)
        finally in.close()
      } catch {
        case _: FileNotFoundException =>
          throw TxlogErrors.checksumNotFound(table.root, version, path.toString)
        case NonFatal(e) =>
          throw TxlogErrors.malformedLogFile(path.toString, version, s"It cannot be read: $e", e)
      }
    val json = ChecksumJson
      .parse(text)
      .fold(why => throw TxlogErrors.malformedLogFile(path.toString, version, why), identity)
    val file = new StoredChecksum(path.toString, version, json)
    Seq("tableSizeBytes", "numFiles", "numMetadata", "numProtocol").foreach(file.requiredLong)
    file
  }
}
