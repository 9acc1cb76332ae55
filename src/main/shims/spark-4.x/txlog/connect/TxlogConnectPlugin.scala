package txlog.connect

import java.util.Optional

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connect.planner.SparkConnectPlanner
import org.apache.spark.sql.connect.plugin.RelationPlugin
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

  /** The plan answering `relation` (a serialized `google.protobuf.Any`) when it holds a txlog call;
    * empty for other extensions. Spark's planner calls it for each relation extension:
    * {{{
    * new TxlogConnectPlugin().transform(relation.getExtension.toByteArray, planner)
    * }}}
    */
  override def transform(
      relation: Array[Byte],
      planner: SparkConnectPlanner
  ): Optional[LogicalPlan] = {
    val any = ProtoAny.parseFrom(relation)
    ConnectPlugin.transform(any.getTypeUrl, any.getValue.toByteArray, planner) match {
      case Some(plan) => Optional.of(plan)
      case None       => Optional.empty()
    }
  }
}
