package org.apache.spark.txlog

import org.apache.spark.SparkContext

/** Test access to Spark's listener bus, which is private to Spark. */
object ListenerBuses {

  /** Returns once every event posted so far has reached the listeners. */
  def drain(sc: SparkContext): Unit = sc.listenerBus.waitUntilEmpty()
}
