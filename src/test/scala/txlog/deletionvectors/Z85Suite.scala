package txlog.deletionvectors

import java.util.UUID

import org.apache.spark.sql.delta.util.Codec.Base85Codec
import org.scalatest.funsuite.AnyFunSuite

import txlog.protocol.{DvPaths, Z85}

/** [[Z85]]: the Z85 test vector, the spec's UUID example (through [[DvPaths]]), a round trip of
  * random bytes, the trimming of padded inline DVs, and text that is not Z85; encoding against the
  * same literals, a fixture's DV file name and delta-spark's `Base85Codec`.
  */
class Z85Suite extends AnyFunSuite with txlog.testing.Claimed {
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

  // ---- Encoding ---------------------------------------------------------------------------

  test("encode: the Z85 specification's test vector and the largest group") {
    val bytes = Array(0x86, 0x4f, 0xd2, 0x6f, 0xb5, 0x59, 0xf7, 0x5b).map(_.toByte)
    assert(Z85.encode(bytes) === "HelloWorld")
    assert(Z85.encode(Array.fill(4)((-1).toByte)) === "%nSc0")
    assert(Z85.encode(Array.emptyByteArray) === "")
    intercept[IllegalArgumentException](Z85.encode(null))
  }

  test("encode: the spec's UUID example and a fixture's DV file name") {
    val spec = UUID.fromString("d2c639aa-8816-431a-aaf6-d3fe2512ff61")
    assert(DvPaths.encodeUuid(spec) === "^-aqEH.-t@S}K{vb[*k^")
    assert(DvPaths.relativeText(spec, "ab") === "ab^-aqEH.-t@S}K{vb[*k^")
    // kernel/basic-dv-no-checkpoint: its one DV file, and the pathOrInlineDv its log names it by
    val fixture = UUID.fromString("899cef78-06b3-4c14-b024-03860e62cd40")
    assert(DvPaths.encodeUuid(fixture) === "IjB3V2d3#qUP%s94R0WF")
    assert(DvPaths.fileName(fixture) === "deletion_vector_899cef78-06b3-4c14-b024-03860e62cd40.bin")
    assert(
      DvPaths.absolutePath("/t", "u", DvPaths.relativeText(fixture, "")).map(_.toString) ===
        Some("/t/deletion_vector_899cef78-06b3-4c14-b024-03860e62cd40.bin")
    )
  }

  test("encode: delta-spark's Base85Codec for random bytes of every length, and back") {
    val random = new scala.util.Random(20)
    (0 to 64).foreach { n =>
      val bytes = Array.fill(n)(random.nextInt(256).toByte)
      assert(Z85.encode(bytes) === Base85Codec.encodeBytes(bytes), s"$n bytes")
      assert(Z85.decode(Z85.encode(bytes), n).toSeq === bytes.toSeq, s"$n bytes")
    }
    (1 to 20).foreach { _ =>
      val id = new UUID(random.nextLong(), random.nextLong())
      assert(DvPaths.encodeUuid(id) === Base85Codec.encodeUUID(id))
      assert(DvPaths.uuid(DvPaths.encodeUuid(id)) === id)
    }
  }

  test("a new DV file's prefix: letters and digits, of the length asked") {
    (0 to 5).foreach { n =>
      val p = DvPaths.randomPrefix(n)
      assert(p.length === n && p.forall(c => c.isLetterOrDigit && c < 128), p)
    }
    val id = UUID.randomUUID()
    Seq("a/b", "x y", "-", "\u00e9").foreach { bad =>
      intercept[IllegalArgumentException](DvPaths.relativeText(id, bad))
    }
  }
}
