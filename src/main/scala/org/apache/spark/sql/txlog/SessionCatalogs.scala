package org.apache.spark.sql.txlog

import java.net.URI

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.catalog.{
  CatalogStorageFormat,
  CatalogTable,
  CatalogTableType,
  CatalogUtils
}
import org.apache.spark.sql.connector.catalog.{
  CatalogManager,
  CatalogV2Util,
  Column,
  Identifier,
  TableCatalog
}
import org.apache.spark.sql.execution.datasources.v2.V2SessionCatalog
import org.apache.spark.sql.types.StructType

/** The built-in session catalog as txlog's table catalog uses it: where table names are kept, the
  * location of a managed table, and a catalog entry of a table txlog has created. In Spark's
  * package because the session catalog and the conversions are `private[sql]`.
  */
object SessionCatalogs {

  /** The built-in session catalog (metastore or in-memory) as a V2 catalog. */
  def builtIn(spark: SparkSession): TableCatalog = new V2SessionCatalog(spark.sessionState.catalog)

  /** Where the built-in catalog puts the managed table `ident`. */
  def managedLocation(spark: SparkSession, ident: Identifier): URI =
    spark.sessionState.catalog.defaultTablePath(tableId(spark, ident))

  /** Fails as the built-in catalog does when a managed table's directory exists already
    * (LOCATION_ALREADY_EXISTS): called before anything is written there.
    */
  def checkLocation(spark: SparkSession, ident: Identifier, location: URI, managed: Boolean): Unit =
    spark.sessionState.catalog.validateTableLocation(entry(spark, ident, location, managed))

  /** Records `ident` in the built-in catalog: provider `txlog`, managed or external at `location`
    * (a managed table's directory is removed by the built-in catalog when it is dropped). The
    * location was checked by [[checkLocation]] before txlog created the table there.
    */
  def register(
      spark: SparkSession,
      ident: Identifier,
      schema: StructType,
      partitionBy: Seq[String],
      location: URI,
      managed: Boolean
  ): Unit = {
    val table =
      entry(spark, ident, location, managed).copy(
        schema = schema,
        partitionColumnNames = partitionBy
      )
    spark.sessionState.catalog.createTable(table, ignoreIfExists = false, validateLocation = false)
  }

  private def entry(spark: SparkSession, ident: Identifier, location: URI, managed: Boolean) =
    CatalogTable(
      identifier = tableId(spark, ident),
      tableType = if (managed) CatalogTableType.MANAGED else CatalogTableType.EXTERNAL,
      storage = CatalogStorageFormat.empty.copy(locationUri = Some(location)),
      schema = new StructType(),
      provider = Some("txlog")
    )

  /** The catalog and identifier a multi-part table name names, as Spark resolves it: a first part
    * that names a catalog picks it, otherwise the current catalog (and, for one part, namespace).
    */
  def catalogAndIdentifier(spark: SparkSession, parts: Seq[String]): (TableCatalog, Identifier) = {
    val cm = spark.sessionState.catalogManager
    val head = parts.head
    val explicit = parts.size > 1 && (cm.isCatalogRegistered(head) ||
      head.equalsIgnoreCase(CatalogManager.SESSION_CATALOG_NAME))
    val (catalog, names) =
      if (explicit) (cm.catalog(head), parts.tail) else (cm.currentCatalog, parts)
    val ns =
      if (names.size > 1 || explicit) names.init.toArray else cm.currentNamespace
    (catalog.asInstanceOf[TableCatalog], Identifier.of(ns, names.last))
  }

  /** The provider and location the built-in catalog records for `ident`, read from its entry
    * without opening the table; None when it has no such database or table (a name it may still
    * resolve otherwise, such as a path in backquotes).
    */
  def entryOf(spark: SparkSession, ident: Identifier): Option[(Option[String], Option[String])] = {
    val catalog = spark.sessionState.catalog
    val id = tableId(spark, ident)
    val known = ident.namespace.length <= 1 && id.database.exists(catalog.databaseExists) &&
      catalog.tableExists(id)
    if (!known) None
    else {
      val t = catalog.getTableMetadata(id)
      Some(t.provider -> t.storage.locationUri.map(CatalogUtils.URIToString))
    }
  }

  /** Whether `name` is a database of the built-in catalog. */
  def isDatabase(spark: SparkSession, name: String): Boolean =
    spark.sessionState.catalog.databaseExists(name)

  /** Whether `name` is a registered catalog (or the session catalog's name). */
  def isCatalog(spark: SparkSession, name: String): Boolean =
    spark.sessionState.catalogManager.isCatalogRegistered(name) ||
      name.equalsIgnoreCase(CatalogManager.SESSION_CATALOG_NAME)

  /** The struct type of V2 columns. */
  def structType(columns: Array[Column]): StructType = CatalogV2Util.v2ColumnsToStructType(columns)

  private def tableId(spark: SparkSession, ident: Identifier): TableIdentifier = {
    val db = ident.namespace.lastOption.getOrElse(spark.sessionState.catalog.getCurrentDatabase)
    TableIdentifier(ident.name, Some(db))
  }
}
