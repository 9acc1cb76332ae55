package txlog.log

import java.nio.charset.StandardCharsets.UTF_8
import java.security.MessageDigest

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.core.JsonParser
import com.fasterxml.jackson.databind.{DeserializationFeature, JsonNode, ObjectMapper}

/** The spec's "JSON checksum" of `_last_checkpoint`: an MD5 over the canonicalized JSON, where
  * canonicalization flattens the document to sorted `path=value` pairs with strict URL encoding.
  */
private[txlog] object LastCheckpointChecksum {

  private[txlog] val mapper: ObjectMapper = new ObjectMapper()
    .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
    .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)

  /** The canonical form of a JSON document, ignoring its top-level `checksum` key. */
  def canonicalize(json: String): String = {
    val pairs = Seq.newBuilder[(String, String)]
    def walk(node: JsonNode, path: Vector[String]): Unit = {
      if (node.isObject) {
        node.properties().asScala.foreach { e =>
          if (!(path.isEmpty && e.getKey == "checksum")) {
            walk(e.getValue, path :+ quote(e.getKey))
          }
        }
      } else if (node.isArray) {
        node.elements().asScala.zipWithIndex.foreach { case (child, i) =>
          walk(child, path :+ i.toString)
        }
      } else {
        pairs += path.mkString("+") -> leaf(node)
      }
    }
    walk(mapper.readTree(json), Vector.empty)
    pairs
      .result()
      .sortWith((a, b) => compareBytes(a._1.getBytes(UTF_8), b._1.getBytes(UTF_8)) < 0)
      .map { case (p, v) => s"$p=$v" }
      .mkString(",")
  }

  /** The 32-character lower-case MD5 hex digest of the canonical form of `json`. */
  def checksum(json: String): String = {
    val digest = MessageDigest.getInstance("MD5").digest(canonicalize(json).getBytes(UTF_8))
    digest.map(b => f"${b & 0xff}%02x").mkString
  }

  private def leaf(node: JsonNode): String =
    if (node.isTextual) quote(node.textValue())
    else if (node.isBigDecimal) node.decimalValue().toString
    else node.asText() // null, true, false and integers are their own canonical form

  private def quote(s: String): String = "\"" + urlEncode(s) + "\""

  /** Percent-encodes every octet except a-z A-Z 0-9 - . _ ~, with upper-case hex digits. */
  private[txlog] def urlEncode(s: String): String = {
    val sb = new StringBuilder
    s.getBytes(UTF_8).foreach { b =>
      val c = (b & 0xff).toChar
      if (
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        c == '-' || c == '.' || c == '_' || c == '~'
      ) sb.append(c)
      else sb.append(f"%%${b & 0xff}%02X")
    }
    sb.toString
  }

  private def compareBytes(a: Array[Byte], b: Array[Byte]): Int = {
    val n = math.min(a.length, b.length)
    var i = 0
    while (i < n) {
      val d = (a(i) & 0xff) - (b(i) & 0xff)
      if (d != 0) return d
      i += 1
    }
    a.length - b.length
  }
}
