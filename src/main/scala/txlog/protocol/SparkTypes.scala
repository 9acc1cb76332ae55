package txlog.protocol

import scala.util.Try

import org.apache.spark.sql.types.DataType

/** Data types of the running Spark line that decide which table features txlog can support: Spark
  * 3.5 has no variant type, so a table whose schema holds one cannot be represented there.
  */
private[txlog] object SparkTypes {

  /** The table features that put variant columns in a schema. */
  val VariantFeatures: Set[String] =
    Set("variantType", "variantType-preview", "variantShredding-preview")

  /** Whether this Spark parses the `variant` type of schemas (Spark 4.0 on). */
  lazy val hasVariant: Boolean = Try(DataType.fromJson("\"variant\"")).isSuccess
}
