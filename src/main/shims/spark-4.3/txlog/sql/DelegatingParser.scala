package txlog.sql

import org.apache.spark.sql.catalyst.parser.{
  ParameterContext,
  ParserInterface,
  SqlStatementSplitResult,
  TemporalIdentifier
}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** [[DelegatingParser4]] with the methods only Spark 4.3's parser interface has: 4.1's parsing
  * with a query's parameters (bound by the delegate, which the interface's default would skip),
  * and the splitting of a script into statements and the temporal table names, the delegate's.
  */
private[txlog] abstract class DelegatingParser(delegate: ParserInterface)
    extends DelegatingParser4(delegate) {
  override def parsePlanWithParameters(sqlText: String, params: ParameterContext): LogicalPlan =
    plan(sqlText, delegate.parsePlanWithParameters(_, params))
  def splitStatements(sqlText: String): SqlStatementSplitResult =
    delegate.splitStatements(sqlText)
  override def parseTemporalTableIdentifier(sqlText: String): TemporalIdentifier =
    delegate.parseTemporalTableIdentifier(sqlText)
}
