package txlog.scan

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.{FileSourceScanExec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec

/** What Spark's file scan of an executed query read, from its metrics. */
object ScanPlans {

  /** The file scans of the executed plan (inside adaptive plans too). */
  def scans(df: DataFrame): Seq[FileSourceScanExec] = {
    def all(p: SparkPlan): Seq[SparkPlan] = p match {
      case a: AdaptiveSparkPlanExec => all(a.executedPlan)
      case other                    => other +: other.children.flatMap(all)
    }
    all(df.queryExecution.executedPlan).collect { case s: FileSourceScanExec => s }
  }

  /** The number of files the query's one file scan read (its "number of files read" metric), after
    * running the query; with its rows, sorted as [[Rows.sorted]] sorts them.
    */
  def filesRead(df: DataFrame): (Long, Seq[String]) = {
    val rows = Rows.sorted(df)
    val s = scans(df)
    assert(s.size == 1, s"expected one file scan, found ${s.size}: ${df.queryExecution}")
    (s.head.metrics("numFiles").value, rows)
  }
}
