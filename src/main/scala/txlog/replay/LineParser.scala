package txlog.replay

import scala.util.control.NonFatal

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.txlog.SparkJson
import org.apache.spark.sql.types.StructType

import txlog.util.Lru

/** Parses JSON log lines on the driver with Spark's own JSON parser (the one `from_json` runs in
  * tasks), so that a small tail is read with exactly the values a Spark job would produce, without
  * planning or running one. One instance per thread: the parser keeps state between lines.
  */
private[txlog] final class LineParser(schema: StructType, timeZone: String) {
  private val parser = SparkJson.parser(schema, timeZone, LogActions.CorruptColumn)
  private val toScala = LineParser.toScala(schema)
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

private[txlog] object LineParser {

  /** Converters to external rows, by schema: stateless, so shared. The schemas parsed are a few
    * constants (the log's action schemas) and a table's checkpoint schema; building one walks the
    * whole schema, a few percent of a small table's load. Bound: 16 schemas.
    */
  private val converters = new Lru[StructType, Any => Any](16)

  private def toScala(schema: StructType): Any => Any =
    converters.getOrElseUpdate(schema, CatalystTypeConverters.createToScalaConverter(schema))
}
