package txlog.oracle

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import org.apache.commons.io.FileUtils
import org.scalatest.funsuite.AnyFunSuite

import txlog.Fixtures

/** The recorded delta-spark answers are used only on the fixtures they were recorded from: a copy
  * of the fixtures with one file changed, or a table removed, fails the stamp check, naming the
  * table.
  */
class RecordingStampSuite extends AnyFunSuite with txlog.testing.Claimed {

  private def copyOfFixtures(): Path = {
    val dir = txlog.testing.TempDirs.create("fixtures-copy").resolve("fixtures")
    FileUtils.copyDirectory(Fixtures.root.toFile, dir.toFile)
    dir
  }

  private def stampError(root: Path): String =
    intercept[IllegalStateException](Recording.parse(Recording.lines(), root)).getMessage

  test("the recording matches the fixtures present, and its answers parse") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val r = Recording.current
    assert(r.header.get("oracleVersion").asText === Recording.oracleVersion)
    assert(r.answer("golden/checkpoint", None).get.version === 14L)
    assert(r.versionsOf("golden/checkpoint") === (0L to 14L))
  }

  test("one changed byte in a copy of the fixtures fails the check, naming its table") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val root = copyOfFixtures()
    assert(Recording.parse(Recording.lines(), root).versionsOf("golden/checkpoint").nonEmpty)
    val commit = root.resolve("golden/checkpoint/_delta_log/00000000000000000003.json")
    val text = new String(Files.readAllBytes(commit), UTF_8)
    Files.write(commit, text.replaceFirst("\"size\":(\\d)", "\"size\":9$1").getBytes(UTF_8))
    val e = stampError(root)
    assert(e.contains("(changed: golden/checkpoint)"), e)
    assert(e.contains("make oracle-record"))
  }

  test("a table removed from, or added to, a copy of the fixtures fails the check") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val root = copyOfFixtures()
    FileUtils.deleteDirectory(root.resolve("golden/checkpoint").toFile)
    assert(stampError(root).contains("(gone: golden/checkpoint)"))
    FileUtils.copyDirectory(
      Fixtures.root.resolve("golden/checkpoint").toFile,
      root.resolve("golden/checkpoint-again").toFile
    )
    FileUtils.copyDirectory(
      Fixtures.root.resolve("golden/checkpoint").toFile,
      root.resolve("golden/checkpoint").toFile
    )
    assert(stampError(root).contains("(not recorded: golden/checkpoint-again)"))
  }
}
