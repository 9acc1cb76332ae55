package txlog.replay

import java.util.concurrent.{ConcurrentLinkedQueue, Semaphore}
import java.util.concurrent.atomic.AtomicInteger

import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.spark.sql.Row
import org.scalatest.funsuite.AnyFunSuite

import txlog.TxlogException
import txlog.errors.TxlogErrors

/** Log files read ahead, several at a time, come out in the order asked, with each file's rows in
  * its own order; no more files are in flight than the threads nor more bytes than the budget; a
  * large file is streamed in its turn; a failing file fails when its turn comes.
  */
class LogFilePrefetchSuite extends AnyFunSuite with txlog.testing.Claimed {

  /** A store where file `v` has `v % 4 + 1` lines and takes a delay that shrinks with `v`, so that
    * later files finish before earlier ones.
    */
  private final class SlowStore(files: Int) {
    val inFlight = new AtomicInteger()
    val mostInFlight = new AtomicInteger()
    val streamed = new ConcurrentLinkedQueue[Long]()
    def read(v: Long, path: String, size: Long): Iterator[Row] = {
      val ahead = Thread.currentThread().getName.startsWith("txlog-log-read-")
      if (ahead) mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), math.max)
      else streamed.add(v)
      try Thread.sleep(((files - v) % 5) * 3L)
      finally if (ahead) inFlight.decrementAndGet()
      Iterator.tabulate((v % 4 + 1).toInt)(i => Row(v, i.toLong, path, s"$v:$i"))
    }
  }

  private def expected(files: Int) =
    (0L until files).flatMap(v => (0 until (v % 4 + 1).toInt).map(i => s"$v:$i"))

  test("rows come in file order and line order, at most `threads` files in flight") {
    val store = new SlowStore(40)
    val work = (0L until 40L).map(v => (v, s"f$v", 100L))
    val rows = new LogFilePrefetch(work, 6, store.read).map(_.getString(3)).toVector
    assert(rows === expected(40))
    assert(store.mostInFlight.get <= 6 && store.mostInFlight.get >= 2, store.mostInFlight.get)
  }

  test("the bytes read ahead stay within the budget; a file past the prefetch size is streamed") {
    val store = new SlowStore(30)
    val most = LogFilePrefetch.MaxPrefetchBytes
    val work = (0L until 30L).map(v => (v, s"f$v", if (v == 4L) most + 1 else most))
    val ahead = new LogFilePrefetch(work, 16, store.read)
    assert(ahead.map(_.getString(3)).toVector === expected(30))
    val byBytes = (LogFilePrefetch.MaxAheadBytes / most).toInt
    assert(store.mostInFlight.get <= byBytes, store.mostInFlight.get)
    assert(store.streamed.asScala.toSeq === Seq(4L))
  }

  test("a file that fails to read fails in its turn, after the rows before it") {
    val failing: (Long, String, Long) => Iterator[Row] = (v, p, _) =>
      if (v == 3L) throw TxlogErrors.logReadFailed(p, Some(v), "IOException: gone", null)
      else Iterator(Row(v, 0L, p, s"$v:0"))
    val ahead = new LogFilePrefetch((0L until 8L).map(v => (v, s"f$v", 10L)), 4, failing)
    assert(ahead.take(3).map(_.getString(3)).toVector === Seq("0:0", "1:0", "2:0"))
    val e = intercept[TxlogException](ahead.next())
    assert(e.errorClass === "LOG_READ_FAILED" && e.getMessage.contains("f3"), e)
  }

  test("closing early stops the reads: no thread is left waiting") {
    val store = new SlowStore(100)
    val ahead = new LogFilePrefetch((0L until 100L).map(v => (v, s"f$v", 10L)), 4, store.read)
    assert(ahead.next().getString(3) === "0:0")
    ahead.close()
    Thread.sleep(50)
    assert(store.inFlight.get === 0)
    assert(!ahead.hasNext)
  }

  test("readers sharing permits read no more files at once than the permits, all of them") {
    val store = new SlowStore(60)
    val permits = new Semaphore(5)
    val work = (0L until 60L).map(v => (v, s"f$v", 10L))
    val readers = (1 to 3).map(_ => new LogFilePrefetch(work, 16, store.read, Some(permits)))
    val rows = readers.map(r =>
      scala.concurrent.Future(r.map(_.getString(3)).toVector)(
        scala.concurrent.ExecutionContext.global
      )
    )
    rows.foreach(f => assert(scala.concurrent.Await.result(f, 60.seconds) === expected(60)))
    assert(store.mostInFlight.get <= 5 && store.mostInFlight.get >= 2, store.mostInFlight.get)
    assert(permits.availablePermits === 5)
  }

  test("permits: half an S3A pool (96 when it is not set), none for other file systems") {
    assert(ReadPermits.permits(500) === 250)
    assert(ReadPermits.permits(0) === 48)
    assert(ReadPermits.permits(1) === 1)
    val local = new Path("file:/tmp").getFileSystem(new Configuration())
    assert(ReadPermits.of(local).isEmpty)
  }
}
