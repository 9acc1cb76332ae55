package txlog.scan

import org.apache.spark.sql.{DataFrame, Row}

/** Rows of a DataFrame in a form two readers' answers can be compared in: each row as text (bytes
  * in hex, map entries sorted, nested rows and arrays spelled out), the rows sorted, and the schema
  * as names and types (nullability aside: readers may differ in what they declare).
  */
object Rows {

  def schema(df: DataFrame): Seq[String] =
    df.schema.fields.toSeq.map(f => s"${f.name}: ${f.dataType.catalogString}")

  def sorted(df: DataFrame): Seq[String] = df.collect().toSeq.map(text).sorted

  def text(v: Any): String = v match {
    case null           => "null"
    case r: Row         => r.toSeq.map(text).mkString("{", ", ", "}")
    case b: Array[Byte] => b.map("%02x".format(_)).mkString("0x", "", "")
    case m: scala.collection.Map[_, _] =>
      m.toSeq.map { case (k, x) => s"${text(k)} -> ${text(x)}" }.sorted.mkString("map(", ", ", ")")
    case s: scala.collection.Seq[_] => s.map(text).mkString("[", ", ", "]")
    case d: java.math.BigDecimal    => d.toPlainString
    case other                      => other.toString
  }
}
