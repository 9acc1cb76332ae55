package txlog.util

import java.util.concurrent.{ExecutionException, Future}

/** The results of work submitted to a driver thread pool, in order; the first failure (in that
  * order) raised as it was thrown, the rest cancelled.
  *
  * {{{
  * val parts = AwaitAll(ranges.map(r => pool.submit(task(r))))
  * }}}
  */
private[txlog] object AwaitAll {
  def apply[T](tasks: Seq[Future[T]]): Seq[T] =
    try tasks.map(_.get())
    catch {
      case e: ExecutionException =>
        tasks.foreach(_.cancel(true))
        throw e.getCause
      case e: InterruptedException =>
        tasks.foreach(_.cancel(true))
        throw e
    }
}
