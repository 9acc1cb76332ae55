package txlog.sql

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.connector.catalog._
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.txlog.SessionCatalogs
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import txlog.{DeltaLog, Snapshot}
import txlog.errors.TxlogErrors

/** Delta tables as Spark tables, by name or by path, written and read by txlog.
  *
  * As a named catalog it keeps table names in Spark's built-in catalog (the metastore, or the
  * in-memory one) and makes every table it creates a txlog table; a path in backquotes names the
  * Delta table there:
  *
  * {{{
  * spark.conf.set("spark.sql.catalog.txlog", "txlog.sql.TxlogCatalog")
  * spark.sql("CREATE TABLE txlog.default.events (id BIGINT, day DATE) USING txlog " +
  *   "PARTITIONED BY (day)")
  * spark.sql("INSERT INTO txlog.default.events VALUES (1, DATE'2024-06-01')")
  * spark.sql("SELECT * FROM txlog.default.events VERSION AS OF 1")
  * spark.sql("SELECT * FROM txlog.`/data/events`")
  * }}}
  *
  * Creating a table (`CREATE TABLE`, `CREATE TABLE ... AS SELECT`, `REPLACE TABLE`, `CREATE OR
  * REPLACE TABLE`) is one Delta commit with its rows. `DROP TABLE` removes the catalog entry, and a
  * managed table's directory as the built-in catalog does. `VERSION AS OF` / `TIMESTAMP AS OF` read
  * the snapshot of that version or time (VERSION_NOT_FOUND, TIMESTAMP_OUT_OF_RANGE otherwise).
  *
  * Set as `spark.sql.catalog.spark_catalog` it serves the built-in catalog's entries whose provider
  * is `txlog` and paths `txlog.`/path``, and hands every other table to the built-in catalog; see
  * docs/sql.md for what that mode does not do yet.
  */
class TxlogCatalog extends DelegatingCatalogExtension with StagingTableCatalog {

  private var catalogName = CatalogManagerNames.Session

  private def spark: SparkSession = SparkSession.active

  private def named: Boolean = catalogName != CatalogManagerNames.Session

  /** Called by Spark with the catalog's name; a named catalog keeps its names in the built-in one.
    * Example: `spark.conf.set("spark.sql.catalog.txlog", "txlog.sql.TxlogCatalog")`.
    */
  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = {
    catalogName = name
    if (named) setDelegateCatalog(SessionCatalogs.builtIn(spark))
  }

  /** The name the catalog was given. Example: `txlog`. */
  override def name(): String = catalogName

  /** The table `ident` at its latest version. Example: `loadTable(Identifier.of(ns, "t"))`. */
  override def loadTable(ident: Identifier): Table = open(ident, _.snapshot(), super.loadTable)

  /** The table `ident` at `version` (`VERSION AS OF`). Example: `loadTable(ident, "3")`. */
  override def loadTable(ident: Identifier, version: String): Table = {
    val v = scala.util
      .Try(version.trim.toLong)
      .toOption
      .filter(_ >= 0)
      .getOrElse(
        throw TxlogErrors.invalidArgument("VERSION AS OF", s"'$version' is not a table version.")
      )
    open(ident, _.snapshot(v), super.loadTable(_, version))
  }

  /** The table `ident` as of `micros` since the epoch (`TIMESTAMP AS OF`). Example:
    * `loadTable(ident, 1717200000000000L)`.
    */
  override def loadTable(ident: Identifier, micros: Long): Table = {
    val ts = new java.sql.Timestamp(Math.floorDiv(micros, 1000L))
    ts.setNanos((Math.floorMod(micros, 1000000L) * 1000L).toInt)
    open(ident, _.snapshotAsOf(ts), super.loadTable(_, micros))
  }

  /** The root of the txlog table `ident` names, from its name or catalog entry alone (its log is
    * not read); None for another provider's table, NoSuchTableException for an unknown name.
    */
  private[txlog] def txlogPath(ident: Identifier): Option[String] =
    TablePaths.of(ident, named).orElse(TablePaths.txlogLocation(super.loadTable(ident)))

  /** Whether `ident` names a table. Example: `tableExists(Identifier.of(ns, "t"))`. */
  override def tableExists(ident: Identifier): Boolean = TablePaths.of(ident, named) match {
    case Some(path) => TablePaths.exists(spark, path)
    case None       => super.tableExists(ident)
  }

  /** Creates a txlog table (version 0 at its location, then the catalog entry), or hands another
    * provider's table to the built-in catalog. Example: `CREATE TABLE t (id INT) USING txlog`.
    */
  override def createTable(
      ident: Identifier,
      schema: StructType,
      partitions: Array[Transform],
      properties: util.Map[String, String]
  ): Table = {
    val props = properties.asScala.toMap
    if (!isTxlog(ident, props)) super.createTable(ident, schema, partitions, properties)
    else {
      val spec = CreateSpec(spark, ident, TablePaths.of(ident, named), schema, partitions, props)
      val existing = TablePaths.exists(spark, spec.location)
      if (existing && schema.nonEmpty) {
        throw TxlogErrors.invalidArgument(
          "LOCATION",
          s"${spec.location} holds a Delta table already: create it with no columns to name it."
        )
      }
      if (!existing) {
        checkLocation(ident, spec)
        DeltaLog.createTable(spark, spec.location, schema, spec.partitionBy, spec.properties)
      }
      val created = DeltaLog.forTable(spark, spec.location).snapshot()
      registerIfNamed(ident, spec.copy(schema = created.metadata.schema), created)
      loadTable(ident)
    }
  }

  /** As the other `createTable`, with Spark's columns. Example: `CREATE TABLE t (id INT)`. */
  override def createTable(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]
  ): Table = createTable(ident, SessionCatalogs.structType(columns), partitions, properties)

  /** `ALTER TABLE` of a txlog table: its changes as one Delta commit ([[TableAlter]]: properties,
    * columns added, renamed, dropped, commented, loosened to nullable, moved); another table goes
    * to the built-in catalog. Example: `ALTER TABLE txlog.default.events ADD COLUMNS (v DOUBLE)`.
    */
  override def alterTable(ident: Identifier, changes: TableChange*): Table =
    loadTable(ident) match {
      case t: TxlogTable =>
        TableAlter.commit(spark, t.snapshot.tablePath, changes)
        loadTable(ident)
      case _ => super.alterTable(ident, changes: _*)
    }

  /** Removes the catalog entry (and a managed table's directory); a path is not dropped. Example:
    * `DROP TABLE txlog.default.events`.
    */
  override def dropTable(ident: Identifier): Boolean =
    if (TablePaths.of(ident, named).isDefined) false else super.dropTable(ident)

  /** `CREATE TABLE ... AS SELECT`: one commit. Example: `CREATE TABLE t USING txlog AS SELECT 1`.
    */
  override def stageCreate(
      ident: Identifier,
      schema: StructType,
      partitions: Array[Transform],
      properties: util.Map[String, String]
  ): StagedTable = staged(ident, schema, partitions, properties, replace = false)

  /** `REPLACE TABLE [AS SELECT]`: one commit. Example: `REPLACE TABLE t USING txlog AS SELECT 1`.
    */
  override def stageReplace(
      ident: Identifier,
      schema: StructType,
      partitions: Array[Transform],
      properties: util.Map[String, String]
  ): StagedTable = {
    if (!tableExists(ident)) throw new NoSuchTableException(ident)
    staged(ident, schema, partitions, properties, replace = true)
  }

  /** `CREATE OR REPLACE TABLE [AS SELECT]`: one commit. Example: `df.writeTo(t).createOrReplace()`.
    */
  override def stageCreateOrReplace(
      ident: Identifier,
      schema: StructType,
      partitions: Array[Transform],
      properties: util.Map[String, String]
  ): StagedTable = staged(ident, schema, partitions, properties, tableExists(ident))

  private def staged(
      ident: Identifier,
      schema: StructType,
      partitions: Array[Transform],
      properties: util.Map[String, String],
      replace: Boolean
  ): StagedTable = {
    val props = properties.asScala.toMap
    if (!isTxlog(ident, props)) {
      throw TxlogErrors.invalidArgument(
        "USING",
        s"$catalogName creates txlog tables only; use the built-in catalog for other providers."
      )
    }
    val path = TablePaths.of(ident, named)
    val current = if (replace) Some(loadTable(ident)) else None
    val spec = current match {
      case Some(t: TxlogTable) =>
        val s = CreateSpec(spark, ident, path, schema, partitions, props)
        if (s.properties.nonEmpty) {
          throw TxlogErrors.invalidArgument(
            "TBLPROPERTIES",
            "replacing a table keeps its " +
              "properties: set them on a new table."
          )
        }
        s.copy(location = t.snapshot.tablePath, managed = false)
      case Some(_) =>
        throw TxlogErrors.invalidArgument("REPLACE", s"$ident is not a txlog table.")
      case None =>
        val s = CreateSpec(spark, ident, path, schema, partitions, props)
        checkLocation(ident, s)
        s
    }
    def register(): Unit =
      if (!replace) registerIfNamed(ident, spec, DeltaLog.forTable(spark, spec.location).snapshot())
    new StagedTxlogTable(spark, ident.toString, spec, replace, () => register())
  }

  private def registerIfNamed(ident: Identifier, spec: CreateSpec, created: Snapshot): Unit =
    if (TablePaths.of(ident, named).isEmpty) {
      val schema = created.metadata.schema
      val parts = created.metadata.partitionColumns
      SessionCatalogs.register(spark, ident, schema, parts, spec.locationUri, spec.managed)
    }

  private def checkLocation(ident: Identifier, spec: CreateSpec): Unit =
    if (TablePaths.of(ident, named).isEmpty) {
      SessionCatalogs.checkLocation(spark, ident, spec.locationUri, spec.managed)
    }

  private def isTxlog(ident: Identifier, props: Map[String, String]): Boolean = {
    val provider = props.get(TableCatalog.PROP_PROVIDER)
    TablePaths.of(ident, named).isDefined ||
    provider.exists(_.equalsIgnoreCase(TxlogTable.Provider)) || (named && provider.isEmpty)
  }

  private def open(
      ident: Identifier,
      at: DeltaLog => Snapshot,
      builtIn: Identifier => Table
  ): Table = TablePaths.of(ident, named) match {
    case Some(path) => TablePaths.open(spark, ident, path, at)
    case None =>
      super.loadTable(ident) match {
        case t if TablePaths.isTxlog(t) =>
          val log = DeltaLog.forTable(spark, TablePaths.location(t))
          new TxlogTable(s"$catalogName.$ident", at(log))
        case _ => builtIn(ident)
      }
  }
}

private[txlog] object CatalogManagerNames {
  val Session = "spark_catalog"
}
