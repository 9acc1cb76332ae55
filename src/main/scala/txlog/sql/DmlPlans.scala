package txlog.sql

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, MergeIntoTable, UpdateTable}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.txlog.SparkPlans

/** What an UPDATE or MERGE of a txlog table gets before Spark resolves it: the MERGE's schema
  * evolution ([[MergeEvolution]]), then the generated columns it changes
  * ([[GeneratedAssignments]]). Statements get it from txlog's parser; `DataFrame.mergeInto` plans
  * (Spark 4), which no parser sees, from this rule, run by Spark before resolution. A statement
  * given it once is tagged ([[Done]]) and left as it is after: the rule runs until nothing changes
  * and after the parser, and each pass would look the table up again.
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

  /** Marks an UPDATE or MERGE this has been applied to. */
  val Done: TreeNodeTag[Unit] = TreeNodeTag[Unit]("txlog.dmlPlans")

  private def dml(p: LogicalPlan): Boolean =
    p.isInstanceOf[UpdateTable] || p.isInstanceOf[MergeIntoTable]

  /** `plan` with [[MergeEvolution]] and [[GeneratedAssignments]] applied, unless every UPDATE and
    * MERGE in it has them already.
    */
  def of(spark: SparkSession, plan: LogicalPlan, parse: String => Expression): LogicalPlan =
    if (!plan.exists(p => dml(p) && p.getTagValue(Done).isEmpty)) plan
    else {
      val out = GeneratedAssignments.ofParsed(spark, MergeEvolution.ofParsed(spark, plan), parse)
      out.foreach(p => if (dml(p)) p.setTagValue(Done, ()))
      out
    }
}
