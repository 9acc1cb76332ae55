package txlog.util

import java.io.StringWriter

import com.fasterxml.jackson.core.JsonGenerator
import com.fasterxml.jackson.databind.ObjectMapper

/** Plain values written as JSON text through Jackson's streaming generator, with the text
  * `ObjectMapper.writeValueAsString` gives for them: strings, booleans, boxed whole and floating
  * numbers, null, and Java maps (string keys, in their order) and collections of them. Any other
  * value (a bean, a big number, a Scala collection, a map with keys of another type) is handed to
  * the mapper where it stands, so the text is the mapper's whatever the value.
  *
  * Why not the mapper alone: it finds a serializer per value through its caches and builds a
  * serializer provider per call; a snapshot's description (a map of about 40 values) cost a fifth
  * of opening a small table from Python that way (JFR, W15 of issue #66), a few microseconds here.
  *
  * {{{
  * PlainJson.write(java.util.Map.of("version", 3L)) // {"version":3}
  * }}}
  */
private[txlog] object PlainJson {
  private val mapper = new ObjectMapper()

  /** `value` as JSON text, as `new ObjectMapper().writeValueAsString(value)` writes it. */
  def write(value: Any): String = {
    val out = new StringWriter(256)
    val gen = mapper.createGenerator(out)
    try value1(gen, value)
    finally gen.close()
    out.toString
  }

  private def value1(gen: JsonGenerator, value: Any): Unit = value match {
    case null                   => gen.writeNull()
    case s: String              => gen.writeString(s)
    case b: java.lang.Boolean   => gen.writeBoolean(b)
    case l: java.lang.Long      => gen.writeNumber(l.longValue)
    case i: java.lang.Integer   => gen.writeNumber(i.intValue)
    case d: java.lang.Double    => gen.writeNumber(d.doubleValue)
    case m: java.util.Map[_, _] => if (stringKeys(m)) obj(gen, m) else mapper.writeValue(gen, m)
    case c: java.util.List[_]   => array(gen, c)
    case other                  => mapper.writeValue(gen, other)
  }

  private def stringKeys(m: java.util.Map[_, _]): Boolean = {
    val it = m.keySet.iterator
    var all = true
    while (all && it.hasNext) all = it.next().isInstanceOf[String]
    all
  }

  private def obj(gen: JsonGenerator, m: java.util.Map[_, _]): Unit = {
    gen.writeStartObject()
    val it = m.entrySet.iterator
    while (it.hasNext) {
      val e = it.next()
      gen.writeFieldName(e.getKey.asInstanceOf[String])
      value1(gen, e.getValue)
    }
    gen.writeEndObject()
  }

  private def array(gen: JsonGenerator, c: java.util.List[_]): Unit = {
    gen.writeStartArray()
    val it = c.iterator
    while (it.hasNext) value1(gen, it.next())
    gen.writeEndArray()
  }
}
