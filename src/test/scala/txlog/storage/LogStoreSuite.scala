package txlog.storage

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, NoSuchFileException}
import java.nio.file.attribute.FileTime
import java.util.concurrent.{CountDownLatch, CyclicBarrier}
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}

import scala.concurrent.{Await, Future}
import scala.concurrent.ExecutionContext
import scala.concurrent.duration._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path, RawLocalFileSystem}
import org.scalatest.funsuite.AnyFunSuite

import txlog.TxlogException
import txlog.log.LogWrites

/** Publishing through `LogWrites` on each kind of storage: local disk, an HDFS-like file system
  * ([[RenameOnlyFileSystem]]) and object stores ([[ObjectStoreLikeFileSystem]]) with and without a
  * conditional create.
  */
class LogStoreSuite extends AnyFunSuite with txlog.testing.Claimed {
  private val fixedTime = FileTime.fromMillis(1577836800000L) // 2020-01-01T00:00:00Z

  private def bytes(s: String) = s.getBytes(UTF_8)

  /** Bytes, modification time and inode of a file, to tell that it was never replaced. */
  private def identity(c: StoreCase, name: String): (String, FileTime, AnyRef) = {
    val f = c.localFile(name)
    (c.read(name), Files.getLastModifiedTime(f), Files.getAttribute(f, "unix:ino"))
  }

  test("put-if-absent and publish of a staged file never replace an existing file") {
    StoreCase.all().foreach { c =>
      Files.write(c.localFile("00000000000000000001.json"), bytes("""{"old":1}"""))
      Files.setLastModifiedTime(c.localFile("00000000000000000001.json"), fixedTime)
      val before = identity(c, "00000000000000000001.json")
      assert(before._2 === fixedTime)

      assert(!LogWrites.putIfAbsent(c.fs, c.path("00000000000000000001.json"), bytes("new")), c)
      Files.write(c.localFile(".staged"), bytes("""{"staged":1}"""))
      assert(!LogWrites.publish(c.fs, c.path(".staged"), c.path("00000000000000000001.json")), c)

      assert(identity(c, "00000000000000000001.json") === before, c)
      assert(c.names === Seq("00000000000000000001.json"), c)
      assert(LogWrites.putIfAbsent(c.fs, c.path("00000000000000000002.json"), bytes("two")), c)
      assert(c.read("00000000000000000002.json") === "two", c)
    }
  }

  test("racing put-if-absent from 8 threads: exactly one wins, and its bytes stay") {
    val pool = java.util.concurrent.Executors.newFixedThreadPool(8)
    implicit val ec: ExecutionContext = ExecutionContext.fromExecutorService(pool)
    try {
      StoreCase.all().foreach { c =>
        // A writer that checks, then renames would all pass the check before any renames.
        FsEvents.renameBarrier.set(if (c.scheme == "rnm") new CyclicBarrier(8) else null)
        val start = new CountDownLatch(1)
        val target = c.path("00000000000000000007.json")
        val racers = (0 until 8).map { i =>
          Future {
            start.await()
            i -> LogWrites.putIfAbsent(c.fs, target, bytes(s"writer $i"))
          }
        }
        start.countDown()
        val results = racers.map(f => Await.result(f, 5.minutes))
        FsEvents.renameBarrier.set(null)
        val winners = results.collect { case (i, true) => i }
        assert(winners.size === 1, c)
        assert(c.read("00000000000000000007.json") === s"writer ${winners.head}", c)
        assert(c.names === Seq("00000000000000000007.json"), c)
      }
    } finally {
      FsEvents.renameBarrier.set(null)
      pool.shutdownNow()
    }
  }

  test("_last_checkpoint is replaced atomically: a reader never sees it missing or partial") {
    val a = """{"version":10,"size":3}""" + " " * 2000
    val b = """{"version":11,"size":4}""" + " " * 6000
    StoreCase.all().foreach { c =>
      FsEvents.clear()
      val target = c.path("_last_checkpoint")
      LogWrites.overwrite(c.fs, target, bytes(a))
      val done = new AtomicBoolean(false)
      val bad = new java.util.concurrent.ConcurrentLinkedQueue[String]()
      val reads = new AtomicInteger(0)
      val reader = new Thread(() => {
        while (!done.get && reads.get < 1000000) {
          try {
            val s = c.read("_last_checkpoint")
            if (s != a && s != b) bad.add(s"partial (${s.length} chars)")
          } catch { case _: NoSuchFileException => bad.add("missing") }
          reads.incrementAndGet()
        }
      })
      reader.start()
      try {
        (1 to 300).foreach(i => LogWrites.overwrite(c.fs, target, bytes(if (i % 2 == 0) a else b)))
      } finally {
        done.set(true)
        reader.join()
      }
      assert(bad.isEmpty, s"$c: ${bad.toArray.distinct.mkString(", ")}")
      assert(reads.get > 0)
      assert(c.read("_last_checkpoint") === a, c)
      assert(FsEvents.on("delete", "_last_checkpoint").isEmpty, s"$c deleted the target")
      assert(c.names === Seq("_last_checkpoint"), c)
    }
  }

  test("an object store without conditional create is refused: STORAGE_NOT_ATOMIC") {
    val c = StoreCase("objn")
    Files.write(c.localFile(".staged"), bytes("x"))
    val e1 = intercept[TxlogException] {
      LogWrites.putIfAbsent(c.fs, c.path("00000000000000000000.json"), bytes("x"))
    }
    val e2 = intercept[TxlogException] {
      LogWrites.publish(c.fs, c.path(".staged"), c.path("00000000000000000000.json"))
    }
    Seq(e1, e2).foreach { e =>
      assert(e.errorClass === "STORAGE_NOT_ATOMIC")
      assert(e.getMessage.contains("spark.txlog.storage.singleWriter=true"))
    }
    assert(!c.names.contains("00000000000000000000.json"))
    // Overwriting _last_checkpoint needs no put-if-absent: a single PUT is atomic.
    LogWrites.overwrite(c.fs, c.path("_last_checkpoint"), bytes("{}"))
    assert(c.read("_last_checkpoint") === "{}")
  }

  test("an object store without conditional create works in single-writer mode, without rename") {
    val c = StoreCase("objn", StoreCase.singleWriter)
    FsEvents.clear()
    assert(LogWrites.putIfAbsent(c.fs, c.path("00000000000000000000.json"), bytes("zero")))
    Files.write(c.localFile(".staged"), bytes("one"))
    assert(LogWrites.publish(c.fs, c.path(".staged"), c.path("00000000000000000001.json")))
    assert(!LogWrites.putIfAbsent(c.fs, c.path("00000000000000000001.json"), bytes("again")))
    assert(c.read("00000000000000000000.json") === "zero")
    assert(c.read("00000000000000000001.json") === "one")
    assert(c.names === Seq("00000000000000000000.json", "00000000000000000001.json"))
    assert(FsEvents.on("rename", "00000000000000000001.json").isEmpty)
  }

  test("Hadoop's checksum side files of replaced or recreated log files are not left stale") {
    // What delta-spark writes a local table with: Hadoop's LocalFileSystem, which keeps a
    // `.<name>.crc` beside each file and verifies it on read.
    val checked = FileSystem.getLocal(new Configuration)
    val dir = txlog.testing.TempDirs.create("txlog-crc")
    val raw = new RawLocalFileSystem()
    raw.initialize(dir.toUri, new Configuration)
    def file(name: String) = new Path(dir.toUri.toString, name)
    def writeChecked(name: String, s: String): Unit = {
      val out = checked.create(file(name), true)
      try out.write(bytes(s))
      finally out.close()
    }
    def readChecked(name: String): String = {
      val in = checked.open(file(name))
      try new String(in.readAllBytes(), UTF_8)
      finally in.close()
    }
    writeChecked("_last_checkpoint", """{"version":1,"size":2}""")
    assert(Files.exists(dir.resolve("._last_checkpoint.crc")))
    LogWrites.overwrite(raw, file("_last_checkpoint"), bytes("""{"version":10,"size":20}"""))
    assert(readChecked("_last_checkpoint") === """{"version":10,"size":20}""")

    // A file deleted without its side file (as txlog deletes), then written again.
    writeChecked("00000000000000000003.crc", "old checksum file")
    assert(raw.delete(file("00000000000000000003.crc"), false))
    assert(Files.exists(dir.resolve(".00000000000000000003.crc.crc")))
    assert(LogWrites.putIfAbsent(raw, file("00000000000000000003.crc"), bytes("rewritten")))
    assert(readChecked("00000000000000000003.crc") === "rewritten")

    // A side file of a file that exists is never touched by a put-if-absent that loses.
    writeChecked("00000000000000000004.json", "{}")
    assert(!LogWrites.putIfAbsent(raw, file("00000000000000000004.json"), bytes("[]")))
    assert(readChecked("00000000000000000004.json") === "{}")
  }
}
