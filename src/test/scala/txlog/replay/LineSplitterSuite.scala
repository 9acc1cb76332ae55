package txlog.replay

import java.io.ByteArrayInputStream
import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

/** Lines are split as `BufferedReader.readLine` splits them, streamed over small buffers. */
class LineSplitterSuite extends AnyFunSuite with txlog.testing.Claimed {
  private def split(text: String, buffer: Int = 64 * 1024): Seq[(Long, String)] =
    new LineSplitter(new ByteArrayInputStream(text.getBytes(UTF_8)), buffer).toSeq

  test("\\n, \\r and \\r\\n end lines; blank lines count but are not returned") {
    assert(split("a\nb\rc\r\nd") === Seq(0L -> "a", 1L -> "b", 2L -> "c", 3L -> "d"))
    assert(split("a\n\n \r\nb\n") === Seq(0L -> "a", 3L -> "b"))
    assert(split("\r\r\na") === Seq(2L -> "a"))
    assert(split("") === Seq.empty)
  }

  test("lines longer than the read buffer, and \\r\\n across a buffer boundary") {
    val long = "x" * (64 * 1024 - 1)
    assert(split(s"$long\r\ny") === Seq(0L -> long, 1L -> "y"))
    val longer = "é" * 100000
    assert(split(s"$longer\n$longer") === Seq(0L -> longer, 1L -> longer))
  }

  test("the smallest buffer a log file is read with splits the same lines") {
    val small = LogLineReader.bufferSize(0)
    assert(small === 4096)
    val text = Seq("x" * 5000, "é" * 3000, "y" * (small - 1), "", "z").mkString("\r\n")
    assert(split(text, small) === split(text))
    assert(split(text, small).map(_._1) === Seq(0L, 1L, 2L, 4L))
  }

  test("a file's buffer: its size and one more byte, within 4 KiB and 64 KiB") {
    assert(LogLineReader.bufferSize(7000) === 7001)
    assert(LogLineReader.bufferSize(10) === 4096)
    assert(LogLineReader.bufferSize(10L * 1024 * 1024) === 65536)
  }
}
