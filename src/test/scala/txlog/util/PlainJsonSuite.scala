package txlog.util

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.scalatest.funsuite.AnyFunSuite

/** [[PlainJson]] writes the text Jackson's `ObjectMapper.writeValueAsString` writes (the oracle),
  * for the values it writes itself and for those it hands to the mapper.
  */
class PlainJsonSuite extends AnyFunSuite with txlog.testing.Claimed {
  private val mapper = new ObjectMapper()

  private def ordered(kvs: (String, Any)*): java.util.Map[String, Any] = {
    val m = new java.util.LinkedHashMap[String, Any]()
    kvs.foreach { case (k, v) => m.put(k, v) }
    m
  }

  private val values: Seq[Any] = Seq(
    null,
    "plain",
    "quote \" backslash \\ newline \n tab \t control \u0001 é 中 \ud83d\ude00",
    java.lang.Boolean.TRUE,
    Long.box(Long.MinValue),
    Int.box(-7),
    Double.box(1e300),
    Double.box(0.1),
    Double.box(Double.NaN),
    Double.box(-0.0),
    java.util.List.of(),
    ordered(),
    // a snapshot's description, in shape
    ordered(
      "tablePath" -> "file:/data/t",
      "version" -> Long.box(12),
      "checkpointVersion" -> null,
      "protocol" -> ordered("minReaderVersion" -> Int.box(3), "readerFeatures" -> Seq("a").asJava),
      "metadata" -> ordered(
        "schemaString" -> """{"type":"struct","fields":[{"name":"a\"b","type":"long"}]}""",
        "configuration" -> Map("delta.appendOnly" -> "true").asJava,
        "createdTime" -> null
      ),
      "fileCounts" -> ordered("numFiles" -> Long.box(3), "sizeInBytes" -> Long.box(1L << 40))
    ),
    // handed to the mapper: other numbers, keys that are not strings, sets, arrays
    ordered("f" -> Float.box(1.5f), "s" -> Short.box(3), "b" -> Byte.box(4)),
    ordered("big" -> new java.math.BigDecimal("1.10"), "n" -> java.math.BigInteger.TEN),
    Map[Any, Any](Long.box(1) -> "one", "two" -> Long.box(2)).asJava,
    Set("only").asJava,
    Array("x", "y"),
    java.util.List.of(ordered("nested" -> java.util.List.of(Long.box(1), "two")))
  )

  test("the text of ObjectMapper.writeValueAsString, value by value") {
    values.foreach { v =>
      assert(PlainJson.write(v) === mapper.writeValueAsString(v), s"for $v")
    }
  }

  test("a map with a null key is the mapper's error") {
    val m = new java.util.HashMap[String, Any]()
    m.put(null, "v")
    val mine = intercept[Exception](PlainJson.write(m))
    val theirs = intercept[Exception](mapper.writeValueAsString(m))
    assert(mine.getClass === theirs.getClass)
  }
}
