package txlog.connect;

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.connect.planner.SparkConnectPlanner;
import org.apache.spark.sql.connect.plugin.RelationPlugin;
import scala.Option;

/**
 * txlog's Python API for Spark Connect clients (Spark 3.5's plugin interface): the relation
 * plugin answering {@code txlog.connect.Call} messages ({@link ConnectDispatch}). Add it to the
 * server with {@code spark.connect.extensions.relation.classes=txlog.connect.TxlogConnectPlugin}
 * ({@code txlog.connect_server_settings()} prints every setting).
 *
 * <p>In Java because Spark 3.5's Connect jar shades protobuf in its bytecode but not in its Scala
 * signatures: Scala sees {@code transform} taking {@code com.google.protobuf.Any}, the JVM calls
 * it with the shaded {@code org.sparkproject.connect.protobuf.Any}, which only Java can name.
 *
 * <pre>{@code
 * spark-submit --class org.apache.spark.sql.connect.service.SparkConnectServer \
 *   --packages org.apache.spark:spark-connect_2.12:3.5.7 --jars txlog.jar \
 *   --conf spark.connect.extensions.relation.classes=txlog.connect.TxlogConnectPlugin ...
 * }</pre>
 */
public final class TxlogConnectPlugin implements RelationPlugin {

  /**
   * The plan answering {@code relation} when it holds a txlog call; empty for others. Spark's
   * planner calls it for each relation extension: {@code plugin.transform(extension, planner)}.
   */
  @Override
  public Option<LogicalPlan> transform(
      org.sparkproject.connect.protobuf.Any relation, SparkConnectPlanner planner) {
    return ConnectPlugin.transform(
        relation.getTypeUrl(), relation.getValue().toByteArray(), planner);
  }
}
