package txlog.log

import java.io.FileNotFoundException
import java.nio.file.Files

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, FileSystem, LocalFileSystem, Path, RawLocalFileSystem}
import org.scalatest.funsuite.AnyFunSuite

import txlog.Fixtures

/** [[LocalLogDir]] gives the statuses Hadoop's own local listing gives (qualified path, length,
  * directory or not, modification time) for the names it is asked for, on Hadoop's checksummed and
  * raw local file systems, and refuses any other file system.
  */
class LocalLogDirSuite extends AnyFunSuite with txlog.testing.Claimed {
  private val conf = new Configuration()
  private val checksummed: FileSystem = FileSystem.getLocal(conf)
  private val raw: FileSystem = {
    val fs = new RawLocalFileSystem()
    fs.initialize(java.net.URI.create("file:///"), conf)
    fs
  }

  private def view(s: FileStatus) =
    (s.getPath.toString, s.getLen, s.isDirectory, s.getModificationTime)

  private def hadoops(fs: FileSystem, dir: Path, wanted: String => Boolean) = {
    val out = ArrayBuffer.empty[FileStatus]
    val it = fs.listStatusIterator(dir)
    while (it.hasNext) out += it.next()
    out.filter(s => wanted(s.getPath.getName)).map(view).sortBy(_._1).toSeq
  }

  private def ours(fs: FileSystem, dir: Path, wanted: String => Boolean) = {
    val out = ArrayBuffer.empty[FileStatus]
    LocalLogDir.lister(fs).get.foreach(dir, wanted)(out += _)
    out.map(view).sortBy(_._1).toSeq
  }

  test("Hadoop's statuses for the wanted names, on the checksummed and the raw file system") {
    assume(Fixtures.available, Fixtures.skipMessage)
    assert(checksummed.isInstanceOf[LocalFileSystem])
    val tables = Seq(
      "golden/basic-with-inserts-deletes-checkpoint",
      "golden/v2-checkpoint-parquet",
      "golden/multi-part-checkpoint",
      "kernel/kernel-pagination-multi-part-checkpoints"
    ).filter(Fixtures.tables.contains)
    assert(tables.size >= 3)
    val from: String => Boolean = n => n.length > 20 && n.substring(0, 20) >= "00000000000000000010"
    // a checksum file beside the log's files: the checksummed file system lists it or not as
    // Hadoop's version does
    val copies = tables.map(t => t -> Fixtures.copy(t, Files.createTempDirectory("locallog")))
    copies.foreach { case (_, c) =>
      Files.write(c.resolve("_delta_log").resolve(".00000000000000000000.json.crc"), Array[Byte]())
    }
    for (
      (t, copy) <- copies; fs <- Seq(checksummed, raw); wanted <- Seq((_: String) => true, from)
    ) {
      val dir = fs.makeQualified(new Path(copy.resolve("_delta_log").toUri))
      val expected = hadoops(fs, dir, wanted)
      assert(expected.nonEmpty || (wanted eq from), t)
      assert(ours(fs, dir, wanted) === expected, s"$t on ${fs.getClass.getSimpleName}")
    }
  }

  test("a missing or non-directory log is FileNotFoundException; other file systems refused") {
    val tmp = Files.createTempDirectory("locallog")
    try {
      val missing = new Path(tmp.resolve("absent").toUri)
      intercept[FileNotFoundException](ours(checksummed, missing, _ => true))
      val file = Files.write(tmp.resolve("file"), Array[Byte](1))
      intercept[FileNotFoundException](ours(raw, new Path(file.toUri), _ => true))
      // a subclass that lists in its own way is not taken for Hadoop's
      val own = new RawLocalFileSystem {
        override def listStatus(f: Path): Array[FileStatus] = Array.empty
      }
      assert(LocalLogDir.lister(own).isEmpty)
    } finally {
      Files.deleteIfExists(tmp.resolve("file"))
      Files.deleteIfExists(tmp)
    }
  }
}
