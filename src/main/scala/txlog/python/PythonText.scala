package txlog.python

/** Text handed to Python in pieces small enough for one py4j answer each.
  *
  * py4j writes an answer through an 8 KiB buffer, so an answer longer than that leaves the JVM in
  * two socket writes; on loopback the second one waits for the first one's delayed ACK (Nagle's
  * algorithm), about 40 ms (measured: 0.3 ms for an answer of 8,180 characters, 44 ms for one of
  * 8,190 to 16,500). A snapshot's description carries its schema, which is past 8 KiB for a table
  * of a few dozen columns under column mapping, so every such answer goes through here: a text that
  * fits is returned as it is (one answer, a Python `str`); a longer one as [[PythonText.Parts]],
  * which Python reads a part per call (`txlog._gateway.call_text`).
  *
  * {{{
  * # Python
  * text = call_text(facade.describe, jsnapshot)   # a str, however long
  * }}}
  */
private[txlog] object PythonText {

  /** The most bytes one part takes on the wire: under py4j's 8,192-character buffer with its answer
    * prefix and end of line, as UTF-8 with py4j's escapes (see [[wireBytes]]).
    */
  val MaxPartBytes = 8000

  /** The pieces of one long text; `part(i)` for `i` below `count`, each at most [[MaxPartBytes]] on
    * the wire, concatenated give the text back.
    */
  final class Parts private[PythonText] (text: String, bounds: Array[Int]) {

    /** How many parts. Example: `parts.count()`. */
    def count(): Int = bounds.length - 1

    /** Part `i`, from 0. Example: `parts.part(0)`. */
    def part(i: Int): String = text.substring(bounds(i), bounds(i + 1))
  }

  /** `text` itself when it fits one answer, else its [[Parts]]; null stays null. */
  def of(text: String): AnyRef =
    if (text == null) null
    else {
      val bounds = cuts(text)
      if (bounds.length == 2) text else new Parts(text, bounds)
    }

  /** The bytes py4j sends for `c`: UTF-8, with backslash, CR and LF escaped as two characters; a
    * surrogate counts 3, so a pair (4 bytes in UTF-8) is over-counted, never under.
    */
  private def wireBytes(c: Char): Int =
    if (c == '\\' || c == '\n' || c == '\r') 2
    else if (c < 0x80) 1
    else if (c < 0x800) 2
    else 3

  /** Where the parts of `text` start, then its length; a surrogate pair is never split. */
  private def cuts(text: String): Array[Int] = {
    val bounds = Array.newBuilder[Int]
    bounds += 0
    var (bytes, i) = (0, 0)
    while (i < text.length) {
      val c = text.charAt(i)
      val width = if (Character.isHighSurrogate(c) && i + 1 < text.length) 2 else 1
      val cost = if (width == 2) wireBytes(c) + wireBytes(text.charAt(i + 1)) else wireBytes(c)
      if (bytes + cost > MaxPartBytes) {
        bounds += i
        bytes = 0
      }
      bytes += cost
      i += width
    }
    bounds += text.length
    bounds.result()
  }
}
