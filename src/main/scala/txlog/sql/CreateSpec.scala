package txlog.sql

import java.net.URI

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.{Identifier, TableCatalog}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.txlog.SessionCatalogs
import org.apache.spark.sql.types.StructType

import txlog.errors.TxlogErrors

/** What a `CREATE TABLE ... USING txlog` asks for: where the table lives (its path, the `LOCATION`
  * given, or the built-in catalog's place for a managed table), its partition columns and the table
  * properties its first commit records. Options (`OPTIONS (...)`) and a comment are
  * INVALID_ARGUMENT before anything is written: txlog records neither yet.
  */
private[txlog] final case class CreateSpec(
    location: String,
    managed: Boolean,
    schema: StructType,
    partitionBy: Seq[String],
    properties: Map[String, String]
) {
  def locationUri: URI = new org.apache.hadoop.fs.Path(location).toUri
}

private[txlog] object CreateSpec {

  // Set by Spark itself on every create: not the user's table properties.
  private val Ignored =
    Set(TableCatalog.PROP_PROVIDER, TableCatalog.PROP_OWNER, TableCatalog.PROP_EXTERNAL) ++
      Set(TableCatalog.PROP_LOCATION, "is_managed_location")

  def apply(
      spark: SparkSession,
      ident: Identifier,
      path: Option[String],
      schema: StructType,
      partitions: Array[Transform],
      properties: Map[String, String]
  ): CreateSpec = {
    properties.keys
      .filter(k => k.startsWith(TableCatalog.OPTION_PREFIX) || k == "comment")
      .toSeq
      .sorted
      .headOption
      .foreach { k =>
        throw TxlogErrors.invalidArgument(k, "txlog tables take no OPTIONS or COMMENT yet.")
      }
    val stated = properties.get(TableCatalog.PROP_LOCATION)
    val location = path
      .orElse(stated)
      .getOrElse(
        SessionCatalogs.managedLocation(spark, ident).toString
      )
    val parts = TxlogTable.partitionColumns(partitions)
    val kept = properties.filter { case (k, _) => !Ignored(k) && k != "collation" }
    if (properties.contains("collation")) {
      throw TxlogErrors.invalidArgument("DEFAULT COLLATION", "txlog tables take no collation yet.")
    }
    CreateSpec(location, path.isEmpty && stated.isEmpty, schema, parts, kept)
  }
}
