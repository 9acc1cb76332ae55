package txlog.util

import org.apache.spark.sql.SparkSession

/** Names the Spark jobs a block runs, so users see txlog's progress in the Spark UI. */
private[txlog] object Jobs {
  def named[T](spark: SparkSession, description: String)(body: => T): T = {
    val sc = spark.sparkContext
    val previous = sc.getLocalProperty("spark.job.description")
    sc.setJobDescription(s"txlog: $description")
    try body
    finally sc.setJobDescription(previous)
  }
}
