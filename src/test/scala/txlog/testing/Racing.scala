package txlog.testing

import java.util.concurrent.{Executors, TimeUnit}

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration._

/** Writers racing as threads of one JVM, for the storage suites' racing-writer tests. */
object Racing {

  /** Runs `writers` threads at once, thread `w` calling `commit(w, i)` for `i` from 0 until
    * `perWriter` in order, and returns every result once all threads are done (an exception of any
    * thread is thrown; 10 minutes at most).
    *
    * {{{
    * val results = Racing.threads(4, 10)((w, i) => commit(uri, s"w$w-$i.parquet"))
    * }}}
    */
  def threads[T](writers: Int, perWriter: Int)(commit: (Int, Int) => T): Seq[T] = {
    val pool = Executors.newFixedThreadPool(writers)
    implicit val ec: ExecutionContext = ExecutionContext.fromExecutor(pool)
    try {
      val all = (0 until writers).map(w => Future((0 until perWriter).map(i => commit(w, i))))
      Await.result(Future.sequence(all), 10.minutes).flatten
    } finally { pool.shutdown(); pool.awaitTermination(1, TimeUnit.MINUTES) }
  }
}
