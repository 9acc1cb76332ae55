package org.apache.spark.sql.txlog

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.classic.{Dataset => ClassicDataset, SparkSession => ClassicSession}

/** A logical plan txlog builds, run as a DataFrame (Spark 4.x: the classic session's `Dataset`). In
  * Spark's package because `Dataset.ofRows` is `private[sql]`.
  */
object SparkPlans {

  /** `plan`, analyzed (and, for a command, run) as `spark.sql` runs a statement's plan. */
  def dataFrame(spark: SparkSession, plan: LogicalPlan): DataFrame =
    ClassicDataset.ofRows(spark.asInstanceOf[ClassicSession], plan)

  /** The rows of a micro-batch `data` (what a streaming sink is handed) as a batch DataFrame over
    * its plan's result, as Spark's `foreachBatch` sink makes it: writable by batch plans, the
    * stream's plan not analyzed again.
    */
  def batchOf(data: DataFrame): DataFrame = {
    val ds = data.asInstanceOf[ClassicDataset[_]]
    val rdd = ds.queryExecution.toRdd
    ClassicDataset.ofRows(
      ds.sparkSession,
      org.apache.spark.sql.execution.LogicalRDD.fromDataset(rdd, ds, isStreaming = false)
    )
  }

  /** The session's SQL parser. */
  def parser(spark: SparkSession): org.apache.spark.sql.catalyst.parser.ParserInterface =
    spark.asInstanceOf[ClassicSession].sessionState.sqlParser

  /** `plan` analyzed, or Spark's AnalysisException. */
  def analyzed(spark: SparkSession, plan: LogicalPlan): LogicalPlan = {
    val qe = spark.asInstanceOf[ClassicSession].sessionState.executePlan(plan)
    qe.assertAnalyzed()
    qe.analyzed
  }

  /** The analyzed plan of `df`. Example: `SparkPlans.analyzedOf(df)`. */
  def analyzedOf(df: DataFrame): LogicalPlan =
    df.asInstanceOf[ClassicDataset[_]].queryExecution.analyzed

  /** Whether the statement says `MERGE WITH SCHEMA EVOLUTION`. */
  def schemaEvolution(m: org.apache.spark.sql.catalyst.plans.logical.MergeIntoTable): Boolean =
    m.withSchemaEvolution

  /** Injects `rule` to run before Spark resolves a plan (a hint resolution rule: the plans of
    * `DataFrame.mergeInto`, which do not come through the parser, are seen there unresolved).
    */
  def injectEarlyRule(
      extensions: org.apache.spark.sql.SparkSessionExtensions,
      rule: SparkSession => org.apache.spark.sql.catalyst.rules.Rule[LogicalPlan]
  ): Unit = extensions.injectHintResolutionRule(rule)
}
