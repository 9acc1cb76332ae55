package txlog.util

import java.util.concurrent.{Callable, ExecutionException, Executors, ThreadFactory}
import java.util.concurrent.atomic.AtomicInteger

import org.apache.spark.sql.SparkSession

/** Driver-side work spread over a few threads (planning many small Spark queries: on a 2-core
  * driver, a hundred plans of 40 ms each take half the time on two threads). Bounded: at most
  * `threads` daemon threads, which end with the call; each runs with `spark` as its active session;
  * results in input order; the first failure is rethrown as itself.
  *
  * {{{
  * val rdds = DriverThreads.map(spark, frames, 4)(_.queryExecution.toRdd)
  * }}}
  */
private[txlog] object DriverThreads {

  def map[A, B](spark: SparkSession, xs: Seq[A], threads: Int)(f: A => B): Seq[B] =
    if (xs.size <= 1 || threads <= 1) xs.map(f)
    else {
      val count = new AtomicInteger
      val factory: ThreadFactory = (r: Runnable) => {
        val t = new Thread(r, s"txlog-driver-${count.incrementAndGet()}")
        t.setDaemon(true)
        t
      }
      val pool = Executors.newFixedThreadPool(math.min(threads, xs.size), factory)
      try {
        val futures = xs.map { x =>
          pool.submit(new Callable[B] {
            def call(): B = { SparkSession.setActiveSession(spark); f(x) }
          })
        }
        futures.map { fu =>
          try fu.get()
          catch { case e: ExecutionException if e.getCause != null => throw e.getCause }
        }
      } finally { pool.shutdownNow(); () }
    }
}
