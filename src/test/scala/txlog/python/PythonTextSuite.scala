package txlog.python

import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

/** Long answers to Python come in parts that each fit one py4j answer: measured, an answer of 8,180
  * characters took 0.3 ms and one of 8,190 took 44 ms (the 8,192-character buffer, less py4j's
  * prefix and end of line), so no part may exceed 8,180 bytes on the wire.
  */
class PythonTextSuite extends AnyFunSuite with txlog.testing.Claimed {

  /** What py4j writes for `s`: UTF-8 with backslash, CR and LF escaped as two characters. */
  private def wire(s: String): Int =
    s.replace("\\", "\\\\").replace("\r", "\\r").replace("\n", "\\n").getBytes(UTF_8).length

  private def parts(text: String): Seq[String] = PythonText.of(text) match {
    case s: String           => Seq(s)
    case p: PythonText.Parts => (0 until p.count()).map(p.part)
  }

  test("a text that fits one answer is returned as it is") {
    val text = "{\"version\":3}" * 500 // 6,500 characters
    assert(PythonText.of(text) eq text)
    assert(PythonText.of("") === "")
    assert(PythonText.of(null) === null)
  }

  test("a long text comes back whole from parts that each fit one answer") {
    val texts = Seq(
      "a" * 20000,
      "\\n\n\r" * 9000, // escapes double the wire size
      "é€" * 7000, // two and three bytes per character
      "😀x" * 5000, // surrogate pairs: four bytes, two characters
      ("{\"name\":\"column\",\"type\":\"long\"}," * 3000) + "😀" * 3000
    )
    texts.foreach { text =>
      val got = parts(text)
      assert(got.size > 1, s"${text.take(10)}: one part")
      assert(got.mkString === text)
      got.foreach(p => assert(wire(p) <= 8180, s"${text.take(10)}: a part of ${wire(p)} bytes"))
      got.foreach(p => assert(!Character.isHighSurrogate(p.last), "a surrogate pair split"))
    }
  }
}
