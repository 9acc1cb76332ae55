package txlog.testing

import scala.collection.mutable

import org.apache.spark.scheduler.{SparkListener, SparkListenerJobStart}
import org.apache.spark.sql.SparkSession

/** The descriptions of the Spark jobs a block runs (txlog names its jobs `txlog: ...`). */
object JobDescriptions {

  def of[T](spark: SparkSession)(body: => T): (T, Seq[String]) = {
    val seen = mutable.Buffer.empty[String]
    val listener = new SparkListener {
      override def onJobStart(e: SparkListenerJobStart): Unit = seen.synchronized {
        seen += Option(e.properties)
          .flatMap(p => Option(p.getProperty("spark.job.description")))
          .getOrElse("")
      }
    }
    spark.sparkContext.addSparkListener(listener)
    try {
      val r = body
      org.apache.spark.txlog.ListenerBuses.drain(spark.sparkContext)
      (r, seen.synchronized(seen.toSeq))
    } finally spark.sparkContext.removeSparkListener(listener)
  }
}
