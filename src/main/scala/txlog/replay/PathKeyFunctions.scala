package txlog.replay

import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

/** [[FileKeys.pathKeyValue]] on Spark's own strings, called by generated code through a static
  * forwarder (see `FileKeys.pathKey`): a plain path is tested in one pass over its bytes and
  * returned as it is, so the common case costs no allocation and no conversion.
  */
private[txlog] object PathKeyFunctions {
  def pathKey(root: UTF8String, path: UTF8String): UTF8String =
    if (isPlain(path)) path
    else UTF8String.fromString(FileKeys.pathKeyValue(root.toString, path.toString))

  /** [[FileKeys.isPlain]] over bytes: no ':' or '%', not starting with '/' or '.', no "/." or "//"
    * (all ASCII, so byte tests are exact in UTF-8).
    */
  def isPlain(p: UTF8String): Boolean = {
    val n = p.numBytes
    if (n > 0 && (byteAt(p, 0) == '/' || byteAt(p, 0) == '.')) return false
    var prev: Byte = 0
    var i = 0
    while (i < n) {
      val b = byteAt(p, i)
      if (b == ':' || b == '%' || (prev == '/' && (b == '.' || b == '/'))) return false
      prev = b
      i += 1
    }
    true
  }

  /** The `i`th byte of `s` (UTF8String's own accessor is not public before Spark 4.0). */
  @inline private def byteAt(s: UTF8String, i: Int): Byte =
    Platform.getByte(s.getBaseObject, s.getBaseOffset + i)
}
