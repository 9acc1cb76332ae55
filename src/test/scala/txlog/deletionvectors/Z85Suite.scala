package txlog.deletionvectors

import java.util.UUID

import org.scalatest.funsuite.AnyFunSuite

import txlog.protocol.{DvPaths, Z85}

/** [[Z85]]: the Z85 test vector, the spec's UUID example (through [[DvPaths]]), a round trip of
  * random bytes, the trimming of padded inline DVs, and text that is not Z85.
  */
class Z85Suite extends AnyFunSuite {
  private val Alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

  /** The test's own encoder: zero-pads to a multiple of 4, as Delta does. */
  private def encode(bytes: Array[Byte]): String = {
    val padded = bytes ++ Array.fill((4 - bytes.length % 4) % 4)(0.toByte)
    padded
      .grouped(4)
      .map { g =>
        var v = g.foldLeft(0L)((acc, b) => (acc << 8) | (b & 0xff))
        val digits = new Array[Char](5)
        (4 to 0 by -1).foreach { i => digits(i) = Alphabet((v % 85).toInt); v /= 85 }
        new String(digits)
      }
      .mkString
  }

  test("the Z85 specification's test vector") {
    val bytes = Array(0x86, 0x4f, 0xd2, 0x6f, 0xb5, 0x59, 0xf7, 0x5b).map(_.toByte)
    assert(Z85.decode("HelloWorld").toSeq === bytes.toSeq)
    assert(encode(bytes) === "HelloWorld")
  }

  test("the spec's relative-path example: prefix 'ab' and the UUID in the last 20 characters") {
    assert(
      DvPaths.uuid("^-aqEH.-t@S}K{vb[*k^") ===
        UUID.fromString("d2c639aa-8816-431a-aaf6-d3fe2512ff61")
    )
    assert(
      DvPaths.absolutePath("s3://mytable", "u", "ab^-aqEH.-t@S}K{vb[*k^").map(_.toString) ===
        Some("s3://mytable/ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin")
    )
  }

  test("random bytes of every length up to 64 decode back, the padding trimmed") {
    val random = new scala.util.Random(1681511377L)
    (0 to 64).foreach { n =>
      val bytes = Array.fill(n)(random.nextInt(256).toByte)
      val text = encode(bytes)
      assert(text.length === (n + 3) / 4 * 5)
      assert(Z85.decode(text, n).toSeq === bytes.toSeq, s"$n bytes")
      assert(Z85.decode(text).toSeq.take(n) === bytes.toSeq)
    }
  }

  test("the largest group is 2^32 - 1") {
    assert(Z85.decode("%nSc0").toSeq === Seq.fill(4)((-1).toByte))
    assert(Z85.decode("00000").toSeq === Seq.fill(4)(0.toByte))
    val e = intercept[IllegalArgumentException](Z85.decode("00000%nSc1"))
    assert(e.getMessage.contains("'%nSc1' at character 5 is above 2^32 - 1"))
    intercept[IllegalArgumentException](Z85.decode("#####"))
  }

  test("text that is not Z85 names what is wrong and where") {
    Seq(' ', '"', '\'', ',', ';', '\\', '_', '`', '|', '~', '\u00e9', '\n').foreach { c =>
      val e = intercept[IllegalArgumentException](Z85.decode(s"Hell${c}World"))
      assert(e.getMessage.contains("at character 4 is not a Z85 character"), e.getMessage)
    }
    val e = intercept[IllegalArgumentException](Z85.decode("Hello!"))
    assert(e.getMessage.contains("multiple of 5 characters, not 6"))
    intercept[IllegalArgumentException](Z85.decode(null))
    intercept[IllegalArgumentException](DvPaths.uuid("^-aqEH.-t@S}K{vb[*k"))
    intercept[IllegalArgumentException](DvPaths.uuid("^-aqEH.-t@S}K{vb[*k~"))
  }

  test("a size the text cannot hold with at most 3 bytes of padding") {
    val text = encode(Array.fill(8)(7.toByte)) // 10 characters, 8 bytes
    assert(Z85.decode(text, 8).length === 8)
    assert(Z85.decode(text, 5).length === 5)
    Seq(-1, 0, 4, 9, 12).foreach { size =>
      val e = intercept[IllegalArgumentException](Z85.decode(text, size))
      assert(e.getMessage.contains(s"cannot be $size bytes"), e.getMessage)
    }
    assert(Z85.decode("", 0).isEmpty)
  }
}
