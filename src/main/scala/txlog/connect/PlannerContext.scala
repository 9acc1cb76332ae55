package txlog.connect

import org.apache.spark.connect.proto
import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.connect.planner.SparkConnectPlanner
import org.apache.spark.sql.txlog.{SparkExpressions, SparkPlans}

/** The [[ConnectContext]] of a call the Connect server's planner hands the plugin. */
private[txlog] final class PlannerContext(planner: SparkConnectPlanner) extends ConnectContext {
  override def session: SparkSession = planner.sessionHolder.session
  override def sessionId: String = planner.sessionHolder.sessionId
  override def dataFrame(relation: Array[Byte]): DataFrame = SparkPlans.dataFrame(
    planner.sessionHolder.session,
    planner.transformRelation(proto.Relation.parseFrom(relation))
  )
  override def column(expression: Array[Byte]): Column = SparkExpressions.column(
    planner.transformExpression(proto.Expression.parseFrom(expression))
  )
}
