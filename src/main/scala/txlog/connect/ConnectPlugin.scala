package txlog.connect

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connect.planner.SparkConnectPlanner

/** What each line's [[TxlogConnectPlugin]] does with a relation extension: the plan answering a
  * `txlog.connect.Call` ([[ConnectDispatch]]), or None for another type (another plugin's).
  */
private[txlog] object ConnectPlugin {
  def transform(
      typeUrl: String,
      value: Array[Byte],
      planner: SparkConnectPlanner
  ): Option[LogicalPlan] =
    if (typeUrl != ConnectCall.TypeUrl) None
    else {
      ConnectSessions.watch(planner.sessionHolder.session)
      Some(ConnectDispatch.plan(ConnectCall.parse(value), new PlannerContext(planner)))
    }
}
