package txlog.testing

import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

/** The suites' temporary directories go with what they hold, and never with what a link in them
  * points to.
  */
class TempDirsSuite extends AnyFunSuite with txlog.testing.Claimed {

  test("a directory is removed with its tables; a linked directory outside it is kept") {
    val d = TempDirs.create("txlog-tempdirs")
    val log = Files.createDirectories(d.resolve("t/_delta_log"))
    Files.write(log.resolve("00000000000000000000.json"), "{}".getBytes("UTF-8"))
    val outside = TempDirs.create("txlog-tempdirs-outside")
    val kept = Files.write(outside.resolve("kept.txt"), "kept".getBytes("UTF-8"))
    Files.createSymbolicLink(d.resolve("link"), outside)
    TempDirs.remove(Seq(d))
    assert(!Files.exists(d))
    assert(Files.exists(kept), "the link was followed")
  }
}
