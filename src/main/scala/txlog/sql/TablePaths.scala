package txlog.sql

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.connector.catalog.{Identifier, Table, TableCatalog}

import txlog.{DeltaLog, ErrorClasses, Snapshot, TxlogException}

/** Tables named by path (`txlog.`/data/events``) and the catalog entries of txlog tables. */
private[txlog] object TablePaths {

  /** The path `ident` names: a name holding a `/` in the namespace `txlog` (or, in a catalog of its
    * own, with no namespace).
    */
  def of(ident: Identifier, named: Boolean): Option[String] = {
    val ns = ident.namespace.toSeq
    val inTxlog = ns == Seq(TxlogTable.Provider) || (named && ns.isEmpty)
    if (inTxlog && ident.name.contains("/")) Some(ident.name) else None
  }

  /** Whether a Delta table is at `path`. */
  def exists(spark: SparkSession, path: String): Boolean =
    try { DeltaLog.forTable(spark, path).snapshot(); true }
    catch { case e: TxlogException if e.errorClass == ErrorClasses.DeltaTableNotFound => false }

  /** The table at `path` at the snapshot `at` picks; no Delta table there is Spark's "no such
    * table" (so `CREATE TABLE txlog.`/path`` may create it).
    */
  def open(spark: SparkSession, ident: Identifier, path: String, at: DeltaLog => Snapshot): Table =
    try new TxlogTable(s"txlog.`$path`", at(DeltaLog.forTable(spark, path)))
    catch {
      case e: TxlogException if e.errorClass == ErrorClasses.DeltaTableNotFound =>
        throw new NoSuchTableException(ident)
    }

  /** Whether a built-in catalog entry is a txlog table. */
  def isTxlog(t: Table): Boolean = isTxlogProvider(
    Option(t.properties().get(TableCatalog.PROP_PROVIDER))
  )

  /** Whether a catalog entry's provider is txlog's. */
  def isTxlogProvider(provider: Option[String]): Boolean =
    provider.exists(_.equalsIgnoreCase(TxlogTable.Provider))

  /** The location of a built-in catalog entry that is a txlog table; None for another provider's.
    */
  def txlogLocation(t: Table): Option[String] = if (isTxlog(t)) Some(location(t)) else None

  def location(t: Table): String = Option(t.properties().get(TableCatalog.PROP_LOCATION)).getOrElse(
    throw new IllegalStateException(s"the catalog entry ${t.name()} has no location")
  )
}
