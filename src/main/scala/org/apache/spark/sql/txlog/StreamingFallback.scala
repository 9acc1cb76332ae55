package org.apache.spark.sql.txlog

import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.catalog.{
  CatalogStorageFormat,
  CatalogTable,
  CatalogTableType,
  CatalogUtils
}
import org.apache.spark.sql.connector.catalog.V2TableWithV1Fallback

/** A txlog table as Spark's streaming writes reach it by name
  * (`df.writeStream.format("txlog").toTable(name)`): through the `txlog` data source's sink at the
  * table's location, as Spark does for a table with a V1 entry. Streaming reads by name are the
  * table's DSv2 stream; Spark's analyzer still looks this entry up beside it (the `txlog` source
  * gives its schema). In Spark's package because Spark's trait for it is `private[sql]`.
  */
trait StreamingFallback extends V2TableWithV1Fallback {

  /** The table's location (its root path). */
  protected def fallbackLocation: String

  /** The entry Spark's streaming reads and writes the table by: provider `txlog`, the location. */
  override def v1Table: CatalogTable = CatalogTable(
    identifier = StreamingFallback.identifier(name()),
    tableType = CatalogTableType.EXTERNAL,
    storage = CatalogStorageFormat.empty
      .copy(locationUri = Some(CatalogUtils.stringToURI(fallbackLocation))),
    schema = schema(),
    provider = Some("txlog")
  )
}

object StreamingFallback {

  /** `name` (catalog, namespace, table) as the identifier Spark's entry needs (with a database). */
  def identifier(name: String): TableIdentifier = {
    val parts = scala.util
      .Try(org.apache.spark.sql.catalyst.parser.CatalystSqlParser.parseMultipartIdentifier(name))
      .getOrElse(Seq(name))
    parts match {
      case Seq(table)     => TableIdentifier(table, Some("default"))
      case Seq(db, table) => TableIdentifier(table, Some(db))
      case more =>
        TableIdentifier(more.last, Some(more.init.last), Some(more.init.init.mkString(".")))
    }
  }
}
