package txlog.sql

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.parser.{ParseException, ParserInterface}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.txlog.SessionCatalogs

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

  /** Injects txlog's parser around the session's. Example: `new TxlogSparkSessionExtensions()(e)`.
    */
  override def apply(extensions: SparkSessionExtensions): Unit =
    extensions.injectParser((session, delegate) => new TxlogSqlParser(session, delegate))
}

/** Parses txlog's statements on txlog tables into [[TxlogCommand]]s; hands the rest to `delegate`.
  */
private[txlog] final class TxlogSqlParser(session: SparkSession, delegate: ParserInterface)
    extends DelegatingParser(delegate) {

  /** A txlog command, or the delegate's plan of `sqlText`. */
  override def parsePlan(sqlText: String): LogicalPlan = SqlStatements.parse(sqlText) match {
    case None => delegate.parsePlan(sqlText)
    case Some(statement) =>
      val parts = delegate.parseMultipartIdentifier(statement.table)
      TxlogSqlTables.pathOf(session, parts) match {
        case Some(path) =>
          statement match {
            case SqlStatement.Optimize(_, Some(w)) => delegate.parseExpression(w)
            case SqlStatement.Purge(_, Some(w))    => delegate.parseExpression(w)
            case _                                 => ()
          }
          TxlogCommand(statement, path, TxlogCommand.outputOf(statement))
        case None =>
          try delegate.parsePlan(sqlText)
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

/** Which tables txlog's statements act on: a txlog table of any catalog, or `txlog.`/path``. */
private[txlog] object TxlogSqlTables {

  /** The root of the txlog table `parts` names; None for another catalog's table. An unknown name
    * is Spark's "table or view not found".
    */
  def pathOf(spark: SparkSession, parts: Seq[String]): Option[String] = parts match {
    case Seq(ns, path) if ns.equalsIgnoreCase(TxlogTable.Provider) && path.contains("/") =>
      Some(path)
    case _ =>
      val (catalog, ident) = SessionCatalogs.catalogAndIdentifier(spark, parts)
      catalog.loadTable(ident) match {
        case t: TxlogTable              => Some(t.snapshot.tablePath)
        case t if TablePaths.isTxlog(t) => Some(TablePaths.location(t))
        case _                          => None
      }
  }
}
