package org.apache.spark.sql.txlog

import org.apache.spark.SparkThrowable

/** Spark's error conditions, under the name each Spark line gives them. */
object SparkErrors {

  /** The error condition of `t` (`PATH_NOT_FOUND`, ...), or null when it has none. */
  def condition(t: SparkThrowable): String = t.getErrorClass
}
