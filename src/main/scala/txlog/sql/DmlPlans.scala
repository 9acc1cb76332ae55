package txlog.sql

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.txlog.SparkPlans

/** What an UPDATE or MERGE of a txlog table gets before Spark resolves it: the MERGE's schema
  * evolution ([[MergeEvolution]]), then the generated columns it changes
  * ([[GeneratedAssignments]]). Statements get it from txlog's parser; `DataFrame.mergeInto` plans
  * (Spark 4), which no parser sees, from this rule, run by Spark before resolution. Both are
  * idempotent: a plan given it once is left as it is.
  *
  * {{{
  * SparkPlans.injectEarlyRule(extensions, DmlPlans(_))
  * }}}
  */
private[txlog] final case class DmlPlans(session: SparkSession) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan =
    DmlPlans.of(session, plan, SparkPlans.parser(session).parseExpression)
}

private[txlog] object DmlPlans {

  /** `plan` with [[MergeEvolution]] and [[GeneratedAssignments]] applied. */
  def of(spark: SparkSession, plan: LogicalPlan, parse: String => Expression): LogicalPlan =
    GeneratedAssignments.ofParsed(spark, MergeEvolution.ofParsed(spark, plan), parse)
}
