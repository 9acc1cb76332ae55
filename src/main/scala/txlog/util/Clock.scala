package txlog.util

import scala.util.DynamicVariable

/** The one clock txlog reads for "now" (snapshots' build time, vacuum's cutoff). It is the system
  * clock; tests that need time to pass fix it for the code they run on their own thread with
  * [[Clock.at]]. No setting changes it: a session conf that moved vacuum's cutoff would delete
  * files within the retention.
  */
private[txlog] object Clock {
  private val fixed = new DynamicVariable[Option[Long]](None)

  /** Milliseconds since the epoch. */
  def now(): Long = fixed.value.getOrElse(System.currentTimeMillis())

  /** Runs `body` with [[now]] fixed at `millis` on this thread. */
  def at[T](millis: Long)(body: => T): T = fixed.withValue(Some(millis))(body)
}
