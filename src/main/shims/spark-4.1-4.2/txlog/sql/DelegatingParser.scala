package txlog.sql

import org.apache.spark.sql.catalyst.parser.{ParameterContext, ParserInterface}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** [[DelegatingParser4]] with the methods only Spark 4.1 and 4.2's parser interface has: a query's
  * parameters (`spark.sql(text, args)`) are bound by the delegate's parsing, which the interface's
  * default (parsePlan, the parameters dropped) would skip (4.3 adds more: the spark-4.3 shim).
  */
private[txlog] abstract class DelegatingParser(delegate: ParserInterface)
    extends DelegatingParser4(delegate) {
  override def parsePlanWithParameters(sqlText: String, params: ParameterContext): LogicalPlan =
    plan(sqlText, delegate.parsePlanWithParameters(_, params))
}
