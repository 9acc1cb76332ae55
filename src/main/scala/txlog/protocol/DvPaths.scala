package txlog.protocol

import java.net.URI
import java.nio.ByteBuffer
import java.util.UUID

import org.apache.hadoop.fs.Path

/** Where a deletion vector is stored ("Deletion Vector Descriptor Schema", derived field
  * `absolutePath`): `u` = `<table>/<prefix>/deletion_vector_<uuid>.bin` with the UUID Z85-encoded
  * in the last 20 characters, `p` = an absolute path, `i` = inline (no file).
  */
private[txlog] object DvPaths {

  /** The file of a DV, or None for an inline one (or an unknown storage type). */
  def absolutePath(root: String, storageType: String, pathOrInlineDv: String): Option[Path] =
    storageType match {
      case "u" =>
        val encoded = pathOrInlineDv.takeRight(20)
        val prefix = pathOrInlineDv.dropRight(20)
        val name = s"deletion_vector_${uuid(encoded)}.bin"
        val dir = if (prefix.isEmpty) new Path(root) else new Path(new Path(root), prefix)
        Some(new Path(dir, name))
      case "p" => Some(new Path(new URI(pathOrInlineDv)))
      case _   => None
    }

  /** The UUID a 20-character Z85 text encodes (16 bytes, big-endian); an IllegalArgumentException
    * for text that is not one.
    */
  def uuid(z85: String): UUID = {
    require(z85.length == 20, s"a Z85 UUID has 20 characters, not ${z85.length}: $z85")
    val bytes = ByteBuffer.wrap(Z85.decode(z85))
    new UUID(bytes.getLong, bytes.getLong)
  }
}
