package txlog.protocol

/** Z85 encoding and decoding (ZeroMQ's Base85 variant, the one the Delta protocol uses because its
  * alphabet is JSON-friendly): every 5 characters are one big-endian 32-bit group, so 4 bytes.
  * Delta encodes the UUID of a `u` deletion vector's file name (20 characters, 16 bytes) and the
  * bytes of an inline (`i`) deletion vector with it; for the latter it pads the bytes with zeros to
  * a multiple of 4 before encoding and records the unpadded length as `sizeInBytes`, so decoding
  * trims back to it.
  *
  * Text that is not Z85 (a character outside the alphabet, a length that is not a multiple of 5, a
  * group above 2^32^ - 1, a size the text cannot hold) raises an IllegalArgumentException saying
  * what and where; callers turn it into their typed error.
  *
  * {{{
  * Z85.encode(Array(0x86, 0x4f, 0xd2, 0x6f, 0xb5, 0x59, 0xf7, 0x5b).map(_.toByte)) // "HelloWorld"
  * Z85.decode("HelloWorld")                  // the 8 bytes 86 4F D2 6F B5 59 F7 5B
  * Z85.decode("wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", 40) // an inline DV's bytes
  * }}}
  */
private[txlog] object Z85 {
  private val Alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

  /** The value of each ASCII character, -1 for those outside the alphabet. */
  private val Digit: Array[Int] = {
    val d = Array.fill(128)(-1)
    Alphabet.zipWithIndex.foreach { case (c, i) => d(c.toInt) = i }
    d
  }

  /** The Z85 text of `bytes`, padded with zeros to a multiple of 4 first as Delta pads an inline DV
    * (so [[decode]]`(text, bytes.length)` gives them back): 5 characters for every 4 bytes.
    *
    * {{{
    * Z85.encode(uuidBytes) // 20 characters: a `u` DV's file name
    * }}}
    */
  def encode(bytes: Array[Byte]): String = {
    if (bytes == null) throw new IllegalArgumentException("no bytes to encode (null)")
    val padded =
      if (bytes.length % 4 == 0) bytes
      else java.util.Arrays.copyOf(bytes, (bytes.length + 3) / 4 * 4)
    val out = new Array[Char](padded.length / 4 * 5)
    var i = 0
    var o = 0
    while (i < padded.length) {
      var group = ((padded(i) & 0xffL) << 24) | ((padded(i + 1) & 0xffL) << 16) |
        ((padded(i + 2) & 0xffL) << 8) | (padded(i + 3) & 0xffL)
      var j = 4
      while (j >= 0) {
        out(o + j) = Alphabet.charAt((group % 85).toInt)
        group /= 85
        j -= 1
      }
      i += 4
      o += 5
    }
    new String(out)
  }

  /** The bytes `text` encodes: 4 for every 5 characters. */
  def decode(text: String): Array[Byte] = {
    if (text == null) throw new IllegalArgumentException("no Z85 text (null)")
    if (text.length % 5 != 0) {
      throw new IllegalArgumentException(
        s"Z85 text has a multiple of 5 characters, not ${text.length}"
      )
    }
    val out = new Array[Byte](text.length / 5 * 4)
    var i = 0
    var o = 0
    while (i < text.length) {
      var group = 0L
      var j = i
      while (j < i + 5) {
        group = group * 85 + digit(text, j)
        j += 1
      }
      if (group > 0xffffffffL) {
        throw new IllegalArgumentException(
          s"the Z85 group '${text.substring(i, i + 5)}' at character $i is above 2^32 - 1"
        )
      }
      out(o) = (group >>> 24).toByte
      out(o + 1) = (group >>> 16).toByte
      out(o + 2) = (group >>> 8).toByte
      out(o + 3) = group.toByte
      i += 5
      o += 4
    }
    out
  }

  /** The first `size` bytes `text` encodes, where the encoder padded `size` bytes with at most 3
    * zeros to a multiple of 4 (Delta's inline deletion vectors).
    */
  def decode(text: String, size: Int): Array[Byte] = {
    val padded = decode(text)
    if (size < 0 || size > padded.length || padded.length - size > 3) {
      throw new IllegalArgumentException(
        s"${text.length} Z85 characters decode to ${padded.length} bytes, which cannot be " +
          s"$size bytes padded to a multiple of 4"
      )
    }
    if (size == padded.length) padded else java.util.Arrays.copyOf(padded, size)
  }

  private def digit(text: String, at: Int): Int = {
    val c = text.charAt(at)
    val d = if (c < 128) Digit(c.toInt) else -1
    if (d < 0) {
      throw new IllegalArgumentException(
        s"'$c' (U+${"%04X".format(c.toInt)}) at character $at is not a Z85 character"
      )
    }
    d
  }
}
