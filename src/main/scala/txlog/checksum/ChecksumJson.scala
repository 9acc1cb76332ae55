package txlog.checksum

import java.nio.charset.StandardCharsets.UTF_8

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper, SerializationFeature}
import com.fasterxml.jackson.databind.node.{ArrayNode, JsonNodeFactory, ObjectNode}

import txlog.{Metadata, Protocol}

/** A version checksum as JSON, in delta-spark's field names and shape: metadata and protocol as in
  * their actions, setTransactions as txn actions, domainMetadata as domainMetadata actions. The
  * file size histogram is written as `fileSizeHistogram` (the spec's name); older delta-spark wrote
  * `histogramOpt`, which is read too.
  */
private[txlog] object ChecksumJson {
  private val nodes = JsonNodeFactory.instance
  private[checksum] val mapper: ObjectMapper = new ObjectMapper()
    .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)

  /** The bytes of a `.crc` file for `c`: one JSON object, no trailing newline. */
  def toBytes(c: VersionChecksum): Array[Byte] =
    mapper.writeValueAsString(toJson(c)).getBytes(UTF_8)

  def toJson(c: VersionChecksum): ObjectNode = {
    val o = nodes.objectNode()
    c.txnId.foreach(o.put("txnId", _))
    o.put("tableSizeBytes", c.tableSizeBytes)
    o.put("numFiles", c.numFiles)
    c.numDeletedRecordsOpt.foreach(o.put("numDeletedRecordsOpt", _))
    c.numDeletionVectorsOpt.foreach(o.put("numDeletionVectorsOpt", _))
    o.put("numMetadata", c.numMetadata)
    o.put("numProtocol", c.numProtocol)
    c.inCommitTimestampOpt.foreach(o.put("inCommitTimestampOpt", _))
    val txns = o.putArray("setTransactions")
    c.setTransactions.sortBy(_.appId).foreach { t =>
      val n = txns.addObject().put("appId", t.appId).put("version", t.version)
      t.lastUpdated.foreach(n.put("lastUpdated", _))
    }
    val domains = o.putArray("domainMetadata")
    c.domainMetadata.sortBy(_.domain).foreach { d =>
      domains
        .addObject()
        .put("domain", d.domain)
        .put("configuration", d.configuration)
        .put("removed", false)
    }
    o.set[JsonNode]("metadata", metadataJson(c.metadata))
    o.set[JsonNode]("protocol", protocolJson(c.protocol))
    c.fileSizeHistogram.foreach(h => o.set[JsonNode]("fileSizeHistogram", histogramJson(h)))
    c.deletedRecordCountsHistogramOpt.foreach { counts =>
      o.putObject("deletedRecordCountsHistogramOpt")
        .set[JsonNode]("deletedRecordCounts", longs(counts))
    }
    o
  }

  def metadataJson(m: Metadata): ObjectNode = {
    val o = nodes.objectNode().put("id", m.id)
    m.name.foreach(o.put("name", _))
    m.description.foreach(o.put("description", _))
    val format = o.putObject("format").put("provider", m.formatProvider)
    format.set[JsonNode]("options", stringMap(m.formatOptions))
    o.put("schemaString", m.schemaString)
    val parts = o.putArray("partitionColumns")
    m.partitionColumns.foreach(parts.add)
    o.set[JsonNode]("configuration", stringMap(m.configuration))
    m.createdTime.foreach(o.put("createdTime", _))
    o
  }

  def protocolJson(p: Protocol): ObjectNode = {
    val o = nodes
      .objectNode()
      .put("minReaderVersion", p.minReaderVersion)
      .put("minWriterVersion", p.minWriterVersion)
    p.readerFeatures.foreach(f => o.set[JsonNode]("readerFeatures", strings(f.toSeq.sorted)))
    p.writerFeatures.foreach(f => o.set[JsonNode]("writerFeatures", strings(f.toSeq.sorted)))
    o
  }

  def histogramJson(h: FileSizeHistogram): ObjectNode = {
    val o = nodes.objectNode()
    o.set[JsonNode]("sortedBinBoundaries", longs(h.sortedBinBoundaries))
    o.set[JsonNode]("fileCounts", longs(h.fileCounts))
    o.set[JsonNode]("totalBytes", longs(h.totalBytes))
    o
  }

  private def longs(xs: Seq[Long]): ArrayNode = {
    val a = nodes.arrayNode()
    xs.foreach(x => a.add(x))
    a
  }

  private def strings(xs: Seq[String]): ArrayNode = {
    val a = nodes.arrayNode()
    xs.foreach(x => a.add(x))
    a
  }

  private def stringMap(m: Map[String, String]): ObjectNode = {
    val o = nodes.objectNode()
    m.toSeq.sortBy(_._1).foreach { case (k, v) => o.put(k, v) }
    o
  }

  /** Parses the text of a `.crc` file: Left(reason) unless it is one JSON object. Unknown fields
    * are kept in the tree and ignored by whoever reads it.
    */
  def parse(text: String): Either[String, ObjectNode] =
    try {
      val parser = mapper.getFactory.createParser(text)
      try {
        val node: JsonNode = mapper.readTree(parser)
        if (node == null || !node.isObject) Left("It is not a JSON object.")
        else if (parser.nextToken() != null) Left("It holds more than one JSON value.")
        else Right(node.asInstanceOf[ObjectNode])
      } finally parser.close()
    } catch {
      case NonFatal(e) =>
        val why =
          Option(e.getMessage).flatMap(_.linesIterator.find(_ => true)).getOrElse(e.toString)
        Left(s"It is not valid JSON: $why")
    }

  /** The canonical text of a JSON value, for comparing and reporting: strings as themselves,
    * anything else as compact JSON with object keys sorted; "null" for an absent value.
    */
  def render(node: JsonNode): String =
    if (node == null || node.isNull || node.isMissingNode) "null"
    else if (node.isTextual) node.textValue()
    else mapper.writeValueAsString(sortKeys(node))

  private def sortKeys(node: JsonNode): JsonNode =
    if (node.isObject) {
      val o = nodes.objectNode()
      node
        .properties()
        .asScala
        .toSeq
        .sortBy(_.getKey)
        .foreach(e => o.set[JsonNode](e.getKey, sortKeys(e.getValue)))
      o
    } else if (node.isArray) {
      val a = nodes.arrayNode()
      node.elements().asScala.foreach(e => a.add(sortKeys(e)))
      a
    } else node
}
