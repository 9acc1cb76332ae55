package txlog.replay

import java.util.concurrent.{Callable, ExecutionException, Executors, Future, Semaphore}
import java.util.concurrent.ThreadFactory
import java.util.concurrent.atomic.AtomicInteger

import org.apache.spark.sql.Row

/** The rows of log files read in order, the files ahead of the one being consumed read `threads` at
  * a time: on an object store each file costs a request's latency (tens of milliseconds), which
  * dominates a log of many small commits when files are read one after another.
  *
  * Driver or task memory: files read ahead are held whole, at most `threads` of them and at most
  * [[LogFilePrefetch.MaxAheadBytes]] of their bytes (at least one file); a file larger than
  * [[LogFilePrefetch.MaxPrefetchBytes]] is never read ahead but streamed when its turn comes. A
  * failure reading a file is raised when that file's turn comes, as `read` raised it. [[close]]
  * stops the reads still running (called when the last row has been read, and by the caller when it
  * stops early).
  *
  * Reads ahead also take a permit of `permits` when one is given ([[ReadPermits]]: on S3A, shared
  * by every reader of one file system in this JVM, within its connection pool), so that the tasks
  * an executor runs at once never ask for more connections than the pool holds, however many
  * threads each has.
  *
  * @param files
  *   (version, path, size in bytes) in the order their rows are wanted
  * @param read
  *   the rows of one file (version, path, size in bytes), streamed
  */
private[txlog] final class LogFilePrefetch(
    files: IndexedSeq[(Long, String, Long)],
    threads: Int,
    read: (Long, String, Long) => Iterator[Row],
    permits: Option[Semaphore] = None
) extends Iterator[Row]
    with AutoCloseable {
  import LogFilePrefetch._

  require(threads >= 1, s"threads must be at least 1, not $threads")

  private val pool = Executors.newFixedThreadPool(threads, daemonThreads)

  /** Files submitted and not yet consumed: a read running or done, or None for one to stream. */
  private val pending = new java.util.ArrayDeque[(Long, String, Long, Option[Future[Array[Row]]])]
  private var submitted = 0
  private var aheadBytes = 0L
  private var current: Iterator[Row] = Iterator.empty
  private var closed = false

  private def fill(): Unit = {
    var more = true
    while (more && !closed && submitted < files.length && pending.size < threads) {
      val (version, path, size) = files(submitted)
      if (size > MaxPrefetchBytes) {
        pending.add((version, path, size, None))
        submitted += 1
      } else if (aheadBytes == 0L || aheadBytes + size <= MaxAheadBytes) {
        val job = pool.submit(new Callable[Array[Row]] {
          def call(): Array[Row] = permits match {
            case None => read(version, path, size).toArray
            case Some(p) =>
              p.acquire() // interrupted by close(): the read is not wanted any more
              try read(version, path, size).toArray
              finally p.release()
          }
        })
        pending.add((version, path, size, Some(job)))
        aheadBytes += size
        submitted += 1
      } else more = false
    }
  }

  def hasNext: Boolean = {
    while (!current.hasNext) {
      if (closed) return false
      fill()
      if (pending.isEmpty) {
        close()
        return false
      }
      val (version, path, size, job) = pending.poll()
      current = job match {
        case Some(f) =>
          val rows = await(f)
          aheadBytes -= size
          rows.iterator
        case None => read(version, path, size)
      }
      fill()
    }
    true
  }

  def next(): Row = {
    if (!hasNext) throw new NoSuchElementException("no more log lines")
    current.next()
  }

  def close(): Unit = if (!closed) {
    closed = true
    pool.shutdownNow()
  }

  private def await(f: Future[Array[Row]]): Array[Row] =
    try f.get()
    catch {
      case e: ExecutionException if e.getCause != null =>
        close()
        throw e.getCause
    }
}

private[txlog] object LogFilePrefetch {

  /** Bytes of files read ahead and held at once. */
  val MaxAheadBytes: Long = 64L * 1024 * 1024

  /** Files larger than this are streamed when their turn comes, never read ahead. */
  val MaxPrefetchBytes: Long = 8L * 1024 * 1024

  private val counter = new AtomicInteger()

  private val daemonThreads: ThreadFactory = r => {
    val t = new Thread(r, s"txlog-log-read-${counter.incrementAndGet()}")
    t.setDaemon(true)
    t
  }
}
