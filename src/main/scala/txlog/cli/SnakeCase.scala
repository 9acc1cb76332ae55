package txlog.cli

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

/** The command line's one naming rule for JSON keys: snake_case, in every command. Fields of
  * results are named so where they are built; rows (history, findings, cleanup candidates, repair
  * actions) keep the API's column names (delta-spark's, for history) and are renamed here, nested
  * struct fields included. Map keys are data (operation parameters, metrics) and stay as written.
  */
private[txlog] object SnakeCase {

  /** `sizeInBytes` -> `size_in_bytes`; a name already in snake_case is unchanged. */
  def apply(name: String): String =
    name
      .replaceAll("([a-z0-9])([A-Z])", "$1_$2")
      .replaceAll("([A-Z])([A-Z][a-z])", "$1_$2")
      .toLowerCase

  /** `df` with every column and nested struct field renamed; the values are unchanged. */
  def of(df: DataFrame): DataFrame =
    df.select(df.schema.fields.toSeq.map { f =>
      val c = col(s"`${f.name.replace("`", "``")}`")
      val t = renamed(f.dataType)
      (if (t == f.dataType) c else c.cast(t)).as(apply(f.name))
    }: _*)

  private def renamed(t: DataType): DataType = t match {
    case s: StructType =>
      StructType(s.fields.map(f => f.copy(name = apply(f.name), dataType = renamed(f.dataType))))
    case a: ArrayType => a.copy(elementType = renamed(a.elementType))
    case m: MapType   => m.copy(valueType = renamed(m.valueType))
    case other        => other
  }
}
