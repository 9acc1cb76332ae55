package txlog.connect

import java.util.concurrent.atomic.AtomicBoolean

import org.apache.spark.scheduler.{SparkListener, SparkListenerEvent}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connect.service.SparkListenerConnectSessionClosed

/** Drops a Connect session's [[ConnectHandles]] when Spark Connect closes the session (the client's
  * `spark.stop()`, or the server's idle timeout), from the event it posts then.
  *
  * {{{
  * ConnectSessions.watch(planner.session)
  * }}}
  */
private[txlog] object ConnectSessions {
  private val watching = new AtomicBoolean(false)

  /** Listens for closed sessions on `spark`'s application, once per JVM. */
  def watch(spark: SparkSession): Unit =
    if (watching.compareAndSet(false, true)) spark.sparkContext.addSparkListener(Listener)

  private object Listener extends SparkListener {
    override def onOtherEvent(event: SparkListenerEvent): Unit = event match {
      case closed: SparkListenerConnectSessionClosed => ConnectHandles.closed(closed.sessionId)
      case _                                         =>
    }
  }
}
