package txlog.sql

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.parser.{ParseException, ParserInterface}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connector.catalog.{Identifier, TableCatalog}
import org.apache.spark.sql.txlog.{SessionCatalogs, SparkPlans}

import txlog.errors.TxlogErrors

/** The Spark session extension of txlog's SQL statements: `DESCRIBE HISTORY`, `DESCRIBE DETAIL`,
  * `VACUUM`, `OPTIMIZE`, `RESTORE` and `REORG TABLE ... APPLY (PURGE)` in delta-spark's grammar,
  * and txlog's `CHECKPOINT TABLE`, `VALIDATE TABLE` and `REPAIR TXLOG TABLE` (docs/sql.md).
  * Statements on tables that are not txlog tables, and every other statement, go to the parser it
  * wraps (delta-spark's, when its extension comes first).
  *
  * {{{
  * val spark = SparkSession.builder()
  *   .config("spark.sql.extensions", "txlog.sql.TxlogSparkSessionExtensions")
  *   .config("spark.sql.catalog.txlog", "txlog.sql.TxlogCatalog")
  *   .getOrCreate()
  * spark.sql("DESCRIBE HISTORY txlog.default.events LIMIT 5").show()
  * }}}
  */
class TxlogSparkSessionExtensions extends (SparkSessionExtensions => Unit) {

  /** Injects txlog's parser around the session's, the analyzer rule that runs Spark's dynamic
    * partition overwrite of a txlog table ([[DynamicOverwrite]]), on Spark 4 the early rule that
    * gives `DataFrame.mergeInto` plans what the parser gives statements ([[DmlPlans]]), and txlog's
    * table-valued functions (`txlog_files(path)`, ..., [[TableFunctions]]). Example: `new
    * TxlogSparkSessionExtensions()(e)`.
    */
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectParser((session, delegate) => new TxlogSqlParser(session, delegate))
    extensions.injectResolutionRule(DynamicOverwrite(_))
    SparkPlans.injectEarlyRule(extensions, DmlPlans(_))
    TableFunctions.register(extensions)
  }
}

/** Parses txlog's statements on txlog tables into [[TxlogCommand]]s; hands the rest to `delegate`,
  * evolving the schema of a MERGE of a txlog table that asks for it ([[MergeEvolution]]) and adding
  * to an UPDATE or MERGE of a txlog table the generated columns it changes
  * ([[GeneratedAssignments]]).
  */
private[txlog] final class TxlogSqlParser(session: SparkSession, delegate: ParserInterface)
    extends DelegatingParser(delegate) {

  /** A txlog command, or `delegated`'s plan of `sqlText` (the delegate's). */
  override protected def plan(sqlText: String, delegated: String => LogicalPlan): LogicalPlan =
    SqlStatements.parse(sqlText) match {
      case None => DmlPlans.of(session, delegated(sqlText), delegate.parseExpression)
      case Some(statement) =>
        val parts = delegate.parseMultipartIdentifier(statement.table)
        TxlogSqlTables.pathOf(session, parts) match {
          case Some(path) =>
            statement match {
              case SqlStatement.Optimize(_, Some(w))   => delegate.parseExpression(w)
              case SqlStatement.Purge(_, Some(w))      => delegate.parseExpression(w)
              case SqlStatement.AddConstraint(_, _, c) => delegate.parseExpression(c)
              case _                                   => ()
            }
            TxlogCommand(statement, path, TxlogCommand.outputOf(statement))
          case None =>
            try delegated(sqlText)
            catch {
              case _: ParseException =>
                throw TxlogErrors.invalidArgument(
                  "table",
                  s"${parts.mkString(".")} is not a txlog table (and no other parser of the " +
                    "session knows the statement)."
                )
            }
        }
    }
}

/** Which tables txlog's statements act on: a txlog table of any catalog, or `txlog.`/path``. The
  * answer comes from catalog entries, never from a table's log: the statement that follows reads
  * the log once, and another provider's table is left to its own parser unopened.
  */
private[txlog] object TxlogSqlTables {

  /** The root of the txlog table `parts` names; None for another catalog's table or another
    * source's path (`delta.`/path``). An unknown name is Spark's "table or view not found".
    */
  def pathOf(spark: SparkSession, parts: Seq[String]): Option[String] = parts match {
    case Seq(ns, path) if ns.equalsIgnoreCase(TxlogTable.Provider) && path.contains("/") =>
      Some(path)
    case Seq(ns, path)
        if path.contains("/") && !SessionCatalogs.isCatalog(spark, ns) &&
          !SessionCatalogs.isDatabase(spark, ns) =>
      None
    case _ =>
      val (catalog, ident) = SessionCatalogs.catalogAndIdentifier(spark, parts)
      catalog match {
        case c: TxlogCatalog => c.txlogPath(ident)
        case c if c.name.equalsIgnoreCase(CatalogManagerNames.Session) =>
          SessionCatalogs.entryOf(spark, ident) match {
            case Some((provider, location)) =>
              if (!TablePaths.isTxlogProvider(provider)) None
              else {
                Some(location.getOrElse {
                  throw new IllegalStateException(s"the catalog entry $ident has no location")
                })
              }
            case None => loaded(c, ident)
          }
        case c => loaded(c, ident)
      }
  }

  private def loaded(catalog: TableCatalog, ident: Identifier): Option[String] =
    catalog.loadTable(ident) match {
      case t: TxlogTable => Some(t.snapshot.tablePath)
      case t             => TablePaths.txlogLocation(t)
    }
}
