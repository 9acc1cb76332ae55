package txlog.storage

import java.io.FileNotFoundException
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{LocalFileSystem, Path, RawLocalFileSystem}
import org.apache.commons.io.IOUtils
import org.scalatest.funsuite.AnyFunSuite

/** [[LocalReads]] opens a local file with the bytes and the errors Hadoop's `RawLocalFileSystem`
  * gives for it (the oracle), and only for that file system and its own paths.
  */
class LocalReadsSuite extends AnyFunSuite with txlog.testing.Claimed {
  private def raw(): RawLocalFileSystem = {
    val fs = new RawLocalFileSystem()
    fs.initialize(new java.net.URI("file:///"), new Configuration())
    fs
  }

  private def bytes(in: java.io.InputStream): String =
    try IOUtils.toString(in, UTF_8)
    finally in.close()

  test("the bytes RawLocalFileSystem reads, for a qualified path and a bare one") {
    val dir = Files.createTempDirectory("local-reads")
    val file = dir.resolve("00000000000000000000.json")
    Files.write(file, "{\"add\":{}}\n\n{\"remove\":{}}".getBytes(UTF_8))
    val fs = raw()
    val open = LocalReads.of(fs).get
    for (p <- Seq(new Path(file.toUri), new Path(file.toString))) {
      assert(bytes(open(p)) === bytes(fs.open(p)))
    }
  }

  test("a missing file and a directory are FileNotFoundException, as Hadoop raises them") {
    val dir = Files.createTempDirectory("local-reads")
    val fs = raw()
    val open = LocalReads.of(fs).get
    for (p <- Seq(new Path(dir.resolve("absent.json").toUri), new Path(dir.toUri))) {
      intercept[FileNotFoundException](fs.open(p).close())
      intercept[FileNotFoundException](open(p).close())
    }
  }

  test("only Hadoop's RawLocalFileSystem itself, and only absolute local paths") {
    val conf = new Configuration()
    val checksummed = new LocalFileSystem()
    checksummed.initialize(new java.net.URI("file:///"), conf)
    assert(LocalReads.of(checksummed).isEmpty)
    assert(LocalReads.of(new RawLocalFileSystem() {}).isEmpty) // a subclass may read otherwise
    assert(LocalReads.of(raw()).isDefined)
    assert(LocalReads.file(new Path("file:/a/b")).map(_.getPath).contains("/a/b"))
    assert(LocalReads.file(new Path("/a/b%20c")).map(_.getPath).contains("/a/b%20c"))
    assert(LocalReads.file(new Path("relative/b")).isEmpty)
    assert(LocalReads.file(new Path("s3a://bucket/a")).isEmpty)
    assert(LocalReads.file(new Path("file://host/a")).isEmpty)
  }
}
