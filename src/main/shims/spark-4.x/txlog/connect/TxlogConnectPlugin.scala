package txlog.connect

import java.util.Optional

import org.apache.spark.connect.proto
import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connect.planner.SparkConnectPlanner
import org.apache.spark.sql.connect.plugin.RelationPlugin
import org.apache.spark.sql.txlog.{SparkExpressions, SparkPlans}
import org.sparkproject.connect.protobuf.{Any => ProtoAny}

/** txlog's Python API for Spark Connect clients (Spark 4.x's plugin interface): the relation plugin
  * answering `txlog.connect.Call` messages ([[ConnectDispatch]]). Add it to the server with
  * `spark.connect.extensions.relation.classes=txlog.connect.TxlogConnectPlugin`
  * (`txlog.connect_server_settings()` prints every setting).
  *
  * {{{
  * spark-submit --class org.apache.spark.sql.connect.service.SparkConnectServer \
  *   --jars txlog.jar \
  *   --conf spark.connect.extensions.relation.classes=txlog.connect.TxlogConnectPlugin ...
  * }}}
  */
class TxlogConnectPlugin extends RelationPlugin {

  /** The plan answering `relation` when it holds a txlog call; empty for other extensions. */
  override def transform(
      relation: Array[Byte],
      planner: SparkConnectPlanner
  ): Optional[LogicalPlan] = {
    val any = ProtoAny.parseFrom(relation)
    if (any.getTypeUrl != ConnectCall.TypeUrl) Optional.empty()
    else {
      ConnectSessions.watch(planner.session)
      val call = ConnectCall.parse(any.getValue.toByteArray)
      Optional.of(ConnectDispatch.plan(call, new TxlogConnectPlugin.Context(planner)))
    }
  }
}

private object TxlogConnectPlugin {
  final class Context(planner: SparkConnectPlanner) extends ConnectContext {
    override def session: SparkSession = planner.session
    override def sessionId: String = planner.sessionHolder.sessionId
    override def dataFrame(relation: Array[Byte]): DataFrame = SparkPlans.dataFrame(
      planner.session,
      planner.transformRelation(proto.Relation.parseFrom(relation))
    )
    override def column(expression: Array[Byte]): Column = SparkExpressions.column(
      planner.transformExpression(proto.Expression.parseFrom(expression))
    )
  }
}
