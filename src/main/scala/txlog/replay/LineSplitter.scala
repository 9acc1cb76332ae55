package txlog.replay

import java.io.InputStream
import java.nio.charset.StandardCharsets.UTF_8

/** Splits a stream of UTF-8 bytes into lines as `BufferedReader.readLine` does ("\n", "\r" or
  * "\r\n" ends a line; a last line without an end counts), holding one line at a time: memory is
  * bounded by the longest line, not by the file. Each line comes with its position (from 0); blank
  * lines are counted but not returned.
  *
  * Not thread-safe; the caller closes the stream.
  */
private[txlog] final class LineSplitter(in: InputStream, bufferBytes: Int = 64 * 1024)
    extends Iterator[(Long, String)] {
  private val buf = new Array[Byte](bufferBytes)
  private var (pos, limit) = (0, 0)
  private var line = new Array[Byte](1024)
  private var used = 0
  private var idx = 0L
  private var eof = false
  private var nextLine: (Long, String) = _

  def hasNext: Boolean = {
    while (nextLine == null && !eof) advance()
    nextLine != null
  }

  def next(): (Long, String) = {
    if (!hasNext) throw new NoSuchElementException("no more lines")
    val out = nextLine
    nextLine = null
    out
  }

  /** Reads up to the end of one line (or of the stream), setting [[nextLine]] unless blank. */
  private def advance(): Unit = {
    used = 0
    var ended = false
    while (!ended) {
      if (pos == limit && !fill()) {
        eof = true
        if (used > 0) emit()
        return
      }
      val start = pos
      while (pos < limit && buf(pos) != '\n' && buf(pos) != '\r') pos += 1
      append(start, pos)
      if (pos < limit) {
        val cr = buf(pos) == '\r'
        pos += 1
        if (cr && (pos < limit || fill()) && buf(pos) == '\n') pos += 1
        ended = true
      }
    }
    emit()
  }

  private def emit(): Unit = {
    val text = new String(line, 0, used, UTF_8)
    if (text.trim.nonEmpty) nextLine = (idx, text)
    idx += 1
  }

  private def append(from: Int, until: Int): Unit = {
    val n = until - from
    if (used + n > line.length) {
      line = java.util.Arrays.copyOf(line, math.max(line.length * 2, used + n))
    }
    System.arraycopy(buf, from, line, used, n)
    used += n
  }

  /** Refills the buffer; false at the end of the stream. */
  private def fill(): Boolean = {
    var n = 0
    while (n == 0) n = in.read(buf, 0, buf.length)
    if (n < 0) { pos = 0; limit = 0; false }
    else { pos = 0; limit = n; true }
  }
}
