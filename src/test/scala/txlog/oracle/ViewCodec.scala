package txlog.oracle

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.{ArrayNode, JsonNodeFactory, ObjectNode}

import txlog.{Refusal, SnapshotView}

/** A reader's refusal as recorded: its [[Refusal]] category and the text of the error. */
final case class RecordedRefusal(category: Refusal.Category, cause: String)
    extends Exception(s"recorded refusal ($category): $cause")

/** [[SnapshotView]]s and refusals as JSON, with the fixtures' root written as a placeholder so that
  * a recording made in one place reads true in another.
  */
object ViewCodec {
  val RootPlaceholder = "${fixtures}"
  private val nodes = JsonNodeFactory.instance
  val mapper = new ObjectMapper()

  private def strings(xs: Iterable[String]): ArrayNode = {
    val a = nodes.arrayNode()
    xs.toSeq.sorted.foreach(a.add)
    a
  }

  private def stringMap(m: Map[String, String]): ObjectNode = {
    val o = nodes.objectNode()
    m.toSeq.sortBy(_._1).foreach { case (k, v) => o.put(k, v) }
    o
  }

  private def text(n: JsonNode): String = if (n == null || n.isNull) null else n.asText

  private def readStrings(n: JsonNode): Seq[String] = n.elements().asScala.map(text).toSeq

  private def readMap(n: JsonNode): Map[String, String] =
    n.fields().asScala.map(e => e.getKey -> text(e.getValue)).toMap

  /** `view` as JSON, each path under `root` (qualified) written relative to the placeholder. */
  def encode(view: SnapshotView, root: String): ObjectNode = {
    def rel(p: String) = if (p.startsWith(root + "/")) RootPlaceholder + p.drop(root.length) else p
    val o = nodes.objectNode()
    o.put("version", view.version)
    val (minReader, minWriter, readerFeatures, writerFeatures) = view.protocol
    val p = o.putObject("protocol")
    p.put("minReaderVersion", minReader).put("minWriterVersion", minWriter)
    p.set[JsonNode]("readerFeatures", strings(readerFeatures))
    p.set[JsonNode]("writerFeatures", strings(writerFeatures))
    val (id, schema, partitionColumns, configuration) = view.metadata
    val m = o.putObject("metadata")
    m.put("id", id).put("schemaString", schema)
    val pc = m.putArray("partitionColumns")
    partitionColumns.foreach(pc.add) // in order: the order is part of the metadata
    m.set[JsonNode]("configuration", stringMap(configuration))
    val live = o.putArray("live")
    view.live.toSeq.map(f => (rel(f._1), f._2, f._3, f._4)).sortBy(f => (f._1, f._2)).foreach {
      case (path, dv, size, pv) =>
        live.addArray().add(path).add(dv).add(size).add(stringMap(pv))
    }
    val tombstones = o.putArray("tombstones")
    view.tombstones.toSeq.map(t => (rel(t._1), t._2)).sorted.foreach { case (path, dv) =>
      tombstones.addArray().add(path).add(dv)
    }
    val txns = o.putObject("txns")
    view.txns.toSeq.sortBy(_._1).foreach { case (app, v) => txns.put(app, v) }
    o.set[JsonNode]("domains", stringMap(view.domains))
    o
  }

  /** The view `encode` wrote, with the placeholder replaced by `root` (qualified). */
  def decode(o: JsonNode, root: String): SnapshotView = {
    def abs(p: String) = if (p.startsWith(RootPlaceholder)) root + p.drop(RootPlaceholder.length)
    else p
    val p = o.get("protocol")
    val m = o.get("metadata")
    SnapshotView(
      o.get("version").asLong,
      (
        p.get("minReaderVersion").asInt,
        p.get("minWriterVersion").asInt,
        readStrings(p.get("readerFeatures")).toSet,
        readStrings(p.get("writerFeatures")).toSet
      ),
      (
        text(m.get("id")),
        text(m.get("schemaString")),
        readStrings(m.get("partitionColumns")),
        readMap(m.get("configuration"))
      ),
      o.get("live")
        .elements()
        .asScala
        .map(f => (abs(f.get(0).asText), f.get(1).asText, f.get(2).asLong, readMap(f.get(3))))
        .toSet,
      o.get("tombstones")
        .elements()
        .asScala
        .map(t => (abs(t.get(0).asText), t.get(1).asText))
        .toSet,
      o.get("txns").fields().asScala.map(e => e.getKey -> e.getValue.asLong).toMap,
      readMap(o.get("domains"))
    )
  }

  def encodeRefusal(r: RecordedRefusal): ObjectNode = {
    val o = nodes.objectNode()
    o.put("category", categoryName(r.category)).put("cause", r.cause)
    o
  }

  def decodeRefusal(o: JsonNode): RecordedRefusal =
    RecordedRefusal(category(o.get("category").asText), o.get("cause").asText)

  private val Unmapped = "Unmapped:"

  def categoryName(c: Refusal.Category): String = c match {
    case Refusal.Unmapped(what) => Unmapped + what
    case known                  => known.toString
  }

  def category(name: String): Refusal.Category = name match {
    case "NotATable"                 => Refusal.NotATable
    case "MissingLog"                => Refusal.MissingLog
    case "Corrupt"                   => Refusal.Corrupt
    case "Unsupported"               => Refusal.Unsupported
    case u if u.startsWith(Unmapped) => Refusal.Unmapped(u.drop(Unmapped.length))
    case other                       => throw new IllegalArgumentException(other)
  }
}
