package org.apache.spark.sql.txlog

import org.apache.spark.sql.{DataFrame, Dataset, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** A logical plan txlog builds, run as a DataFrame (Spark 3.5). In Spark's package because
  * `Dataset.ofRows` is `private[sql]`.
  */
object SparkPlans {

  /** `plan`, analyzed (and, for a command, run) as `spark.sql` runs a statement's plan. */
  def dataFrame(spark: SparkSession, plan: LogicalPlan): DataFrame = Dataset.ofRows(spark, plan)

  /** The rows of a micro-batch `data` (what a streaming sink is handed) as a batch DataFrame over
    * its plan's result, as Spark's `foreachBatch` sink makes it: writable by batch plans, the
    * stream's plan not analyzed again.
    */
  def batchOf(data: DataFrame): DataFrame = {
    val rdd = data.queryExecution.toRdd
    Dataset.ofRows(
      data.sparkSession,
      org.apache.spark.sql.execution.LogicalRDD.fromDataset(rdd, data, isStreaming = false)
    )
  }

  /** The session's SQL parser. */
  def parser(spark: SparkSession): org.apache.spark.sql.catalyst.parser.ParserInterface =
    spark.sessionState.sqlParser

  /** `plan` analyzed, or Spark's AnalysisException. */
  def analyzed(spark: SparkSession, plan: LogicalPlan): LogicalPlan = {
    val qe = spark.sessionState.executePlan(plan)
    qe.assertAnalyzed()
    qe.analyzed
  }

  /** The analyzed plan of `df`. Example: `SparkPlans.analyzedOf(df)`. */
  def analyzedOf(df: DataFrame): LogicalPlan = df.queryExecution.analyzed

  /** Whether the statement says `MERGE WITH SCHEMA EVOLUTION`. */
  def schemaEvolution(m: org.apache.spark.sql.catalyst.plans.logical.MergeIntoTable): Boolean =
    false // no MERGE WITH SCHEMA EVOLUTION before Spark 4.0

  /** Injects `rule` to run before Spark resolves a plan: Spark 3.5 has no such hook, nor the
    * `DataFrame.mergeInto` it serves (its statements come through txlog's parser).
    */
  def injectEarlyRule(
      extensions: org.apache.spark.sql.SparkSessionExtensions,
      rule: SparkSession => org.apache.spark.sql.catalyst.rules.Rule[LogicalPlan]
  ): Unit = ()
}
