package txlog.connect

import org.apache.spark.sql.{Column, DataFrame, SparkSession}

/** What a call needs from the Connect server's planner, per Spark line (the plugin's shim): the
  * client's session, and its DataFrames and Columns from their Connect messages.
  */
private[txlog] trait ConnectContext {

  /** The client's session on the server. */
  def session: SparkSession

  /** The Connect session's id (its handles are kept under it). */
  def sessionId: String

  /** The DataFrame of a serialized `spark.connect.Relation`. */
  def dataFrame(relation: Array[Byte]): DataFrame

  /** The Column of a serialized `spark.connect.Expression`. */
  def column(expression: Array[Byte]): Column
}
