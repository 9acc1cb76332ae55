package org.apache.spark.sql.txlog

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.json.{CreateJacksonParser, JacksonParser, JSONOptions}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType
import org.apache.spark.unsafe.types.UTF8String

/** Spark's own JSON parser (the one `from_json` runs in tasks), for parsing on the driver. In
  * Spark's package because its options and parser factories are `private[sql]` on every line.
  */
object SparkJson {

  /** A parser of one JSON text into rows of `schema`, flagging what `from_json` would flag in
    * `corruptColumn`; it keeps state between calls, so one per thread.
    *
    * Each thread keeps the last [[PerThread]] parsers it was given and gives one again for the same
    * schema (the same object), time zone and corrupt column while the thread's SQL settings
    * (`SQLConf.get`, which Spark's JSON options and parser read when built) are equal to those it
    * was built under: building one (its options and a converter per field of the schema) cost about
    * 0.2 ms, three times per small table opened and listed. Bound: [[PerThread]] parsers per thread
    * that parses on the driver.
    */
  def parser(
      schema: StructType,
      timeZone: String,
      corruptColumn: String
  ): String => Iterable[InternalRow] = {
    val conf = SQLConf.get
    val kept = cache.get
    var i = 0
    while (i < kept.length) {
      val k = kept(i)
      if (
        k != null && (k.schema eq schema) && k.timeZone == timeZone &&
        k.corruptColumn == corruptColumn && SqlSettings.same(conf, k.settings)
      ) return k.parse
      i += 1
    }
    val settings = SqlSettings.take(conf) // before building: a change meanwhile builds again
    val p = new JacksonParser(
      schema,
      new JSONOptions(Map.empty[String, String], timeZone, corruptColumn),
      false,
      Seq.empty
    )
    val parse = (line: String) =>
      p.parse(line, CreateJacksonParser.string _, UTF8String.fromString _)
    // the oldest goes: entries shift down, the new one is last
    System.arraycopy(kept, 1, kept, 0, kept.length - 1)
    kept(kept.length - 1) = new Kept(schema, timeZone, corruptColumn, settings, parse)
    parse
  }

  /** The most parsers a thread keeps. */
  val PerThread = 4

  private final class Kept(
      val schema: StructType,
      val timeZone: String,
      val corruptColumn: String,
      val settings: java.util.Map[String, String],
      val parse: String => Iterable[InternalRow]
  )

  private val cache = ThreadLocal.withInitial[Array[Kept]](() => new Array[Kept](PerThread))
}
