package txlog.replay

import scala.util.control.NonFatal

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.txlog.SparkJson
import org.apache.spark.sql.types.StructType

/** Parses JSON log lines on the driver with Spark's own JSON parser (the one `from_json` runs in
  * tasks), so that a small tail is read with exactly the values a Spark job would produce, without
  * planning or running one. One instance per thread: the parser keeps state between lines.
  */
private[txlog] final class LineParser(schema: StructType, timeZone: String) {
  private val parser = SparkJson.parser(schema, timeZone, LogActions.CorruptColumn)
  private val toScala = CatalystTypeConverters.createToScalaConverter(schema)
  private val nulls = Row.fromSeq(Seq.fill(schema.length)(null))

  /** The line's action as a row of `schema`; None when it is not valid JSON or a field has the
    * wrong type (what `from_json` would flag in `_corrupt_record`). A JSON `null` gives a row of
    * nulls, as `from_json` does.
    */
  def parse(line: String): Option[Row] =
    try {
      val rows = parser(line)
      Some(rows.headOption.map(toScala(_).asInstanceOf[Row]).getOrElse(nulls))
    } catch { case NonFatal(_) => None }
}
