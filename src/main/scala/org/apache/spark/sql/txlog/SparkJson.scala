package org.apache.spark.sql.txlog

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.json.{CreateJacksonParser, JacksonParser, JSONOptions}
import org.apache.spark.sql.types.StructType
import org.apache.spark.unsafe.types.UTF8String

/** Spark's own JSON parser (the one `from_json` runs in tasks), for parsing on the driver. In
  * Spark's package because its options and parser factories are `private[sql]` on every line.
  */
object SparkJson {

  /** A parser of one JSON text into rows of `schema`, flagging what `from_json` would flag in
    * `corruptColumn`; it keeps state between calls, so one per thread.
    */
  def parser(
      schema: StructType,
      timeZone: String,
      corruptColumn: String
  ): String => Iterable[InternalRow] = {
    val p = new JacksonParser(
      schema,
      new JSONOptions(Map.empty[String, String], timeZone, corruptColumn),
      false,
      Seq.empty
    )
    line => p.parse(line, CreateJacksonParser.string _, UTF8String.fromString _)
  }
}
