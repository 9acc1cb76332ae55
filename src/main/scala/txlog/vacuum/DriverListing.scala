package txlog.vacuum

import java.util.concurrent.{
  Callable,
  ExecutionException,
  ExecutorCompletionService,
  ExecutorService,
  Executors,
  Future,
  ThreadFactory
}
import java.util.concurrent.atomic.AtomicInteger

import org.apache.hadoop.fs.{FileSystem, Path}

/** The table directory listed on the driver, for a vacuum without Spark jobs: up to [[Threads]]
  * directories listed at once (parallel LISTs on an object store, where each costs a request's
  * latency), each directory's entries handed to the caller's thread as its listing ends. The rules
  * are [[TreeListing]]'s: hidden names neither returned nor descended into, links neither returned
  * nor followed, a directory that vanished lists as empty, any other storage failure is
  * LOG_READ_FAILED naming the directory.
  *
  * {{{
  * DriverListing.walk(fs, root, hidden) { e => found += e; true }  // Some(directories)
  * }}}
  */
private[txlog] object DriverListing {

  /** Directories listed at once, and paths deleted at once by [[DriverVacuum]]. */
  val Threads = 8

  private val counter = new AtomicInteger()

  /** Daemon threads shared by every driver vacuum of this JVM: they wait on storage, not CPU. */
  private[vacuum] lazy val pool: ExecutorService = Executors.newFixedThreadPool(
    Threads,
    { (r: Runnable) =>
      val t = new Thread(r, s"txlog-vacuum-${counter.incrementAndGet()}")
      t.setDaemon(true)
      t
    }: ThreadFactory
  )

  /** Calls `f` with every visible entry below the root, on this thread; `f` answers false to stop
    * the walk (nothing more is listed then). Returns the directories listed below the root, or None
    * when `f` stopped it.
    */
  def walk(fs: FileSystem, root: TableRoot, hidden: HiddenNames)(
      f: Listed => Boolean
  ): Option[Long] = {
    val done = new ExecutorCompletionService[Iterator[Listed]](pool)
    val inFlight = new java.util.HashSet[Future[Iterator[Listed]]]()
    def list(relative: String): Unit = {
      val dir = if (relative.isEmpty) new Path(root.root) else root.absolute(relative)
      inFlight.add(done.submit(new Callable[Iterator[Listed]] {
        // read whole on the listing thread: the caller only walks the entries
        def call(): Iterator[Listed] =
          TreeListing.entries(fs, dir, relative, hidden).toVector.iterator
      }))
    }
    var dirs = 0L
    var going = true
    try {
      list("")
      while (!inFlight.isEmpty && going) {
        val listed = done.take()
        inFlight.remove(listed)
        val entries =
          try listed.get()
          catch { case e: ExecutionException => throw e.getCause }
        while (going && entries.hasNext) {
          val e = entries.next()
          going = f(e)
          if (going && e.isDir) { dirs += 1; list(e.path) }
        }
      }
      if (going) Some(dirs) else None
    } finally inFlight.forEach(_.cancel(true))
  }
}
