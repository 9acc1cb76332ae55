package txlog.sql

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.catalyst.plans.logical.{
  LogicalPlan,
  OverwriteByExpression,
  OverwritePartitionsDynamic
}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

import txlog.write.DynamicPartitions

/** Spark's dynamic partition overwrite of a txlog table (`df.writeTo(t).overwritePartitions()`,
  * `INSERT OVERWRITE` with `spark.sql.sources.partitionOverwriteMode=dynamic`) as the overwrite of
  * every row with the write option `partitionOverwriteMode=dynamic`, which replaces the partitions
  * written only ([[txlog.write.DynamicPartitions]]): Spark runs its own plan for it only as a
  * DataSource V2 batch write, and txlog's tables write through one DataFrame writer (delta-spark's
  * session extension reroutes its tables' the same way). An analyzer rule of
  * [[TxlogSparkSessionExtensions]]; other tables' plans are left as they are.
  *
  * {{{
  * extensions.injectResolutionRule(DynamicOverwrite(_))
  * }}}
  */
private[txlog] final case class DynamicOverwrite(session: SparkSession) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsDown {
    case o: OverwritePartitionsDynamic if o.query.resolved && txlogTable(o) =>
      val options = o.writeOptions + (DynamicPartitions.Option -> "dynamic")
      if (o.isByName) OverwriteByExpression.byName(o.table, o.query, Literal.TrueLiteral, options)
      else OverwriteByExpression.byPosition(o.table, o.query, Literal.TrueLiteral, options)
  }

  private def txlogTable(o: OverwritePartitionsDynamic): Boolean = o.table match {
    case r: DataSourceV2Relation => r.table.isInstanceOf[TxlogTable]
    case _                       => false
  }
}
