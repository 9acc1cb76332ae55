package txlog.protocol

import java.net.URI
import java.nio.ByteBuffer
import java.util.UUID

import org.apache.hadoop.fs.Path

/** Where a deletion vector is stored ("Deletion Vector Descriptor Schema", derived field
  * `absolutePath`): `u` = `<table>/<prefix>/deletion_vector_<uuid>.bin` with the UUID Z85-encoded
  * in the last 20 characters, `p` = an absolute path, `i` = inline (no file).
  *
  * New `u` texts follow delta-spark's DV writer: a random prefix only when the table sets
  * `delta.randomizeFilePrefixes`, of `delta.randomPrefixLength` letters and digits (as its data
  * files' prefixes); otherwise none, so the file is in the table's root directory.
  *
  * {{{
  * val id = java.util.UUID.randomUUID()
  * val text = DvPaths.relativeText(id, DvPaths.randomPrefix(DvPaths.prefixLength(config)))
  * DvPaths.absolutePath(root, "u", text) // Some(<root>/<prefix>/deletion_vector_<id>.bin)
  * }}}
  */
private[txlog] object DvPaths {

  /** The name of the DV file of `id`. Example: `DvPaths.fileName(id)`. */
  def fileName(id: UUID): String = s"deletion_vector_$id.bin"

  /** The 20 Z85 characters of `id` (its 16 bytes, big-endian). Example: `DvPaths.encodeUuid(id)`.
    */
  def encodeUuid(id: UUID): String = {
    val bytes = ByteBuffer.allocate(16)
    bytes.putLong(id.getMostSignificantBits).putLong(id.getLeastSignificantBits)
    Z85.encode(bytes.array)
  }

  /** The `pathOrInlineDv` of a `u` DV in file `id` under directory `prefix` of the table ("" for
    * the root); a prefix of anything but ASCII letters and digits is an IllegalArgumentException
    * (the spec recovers it as the characters before the last 20, and it names a directory).
    * Example: `DvPaths.relativeText(id, "ab")`.
    */
  def relativeText(id: UUID, prefix: String): String = {
    require(
      prefix != null && prefix.forall(c => c < 128 && c.isLetterOrDigit),
      s"a DV file's prefix has only ASCII letters and digits: '$prefix'"
    )
    prefix + encodeUuid(id)
  }

  /** How many characters of random prefix a new DV file of a table with `config` gets: its
    * `delta.randomPrefixLength` when `delta.randomizeFilePrefixes` is set, else 0 (delta-spark's
    * rule). Example: `DvPaths.prefixLength(snap.config)`.
    */
  def prefixLength(config: TableConfiguration): Int =
    if (config.randomizeFilePrefixes) config.randomPrefixLength else 0

  /** `length` random ASCII letters and digits. Example: `DvPaths.randomPrefix(2)`. */
  def randomPrefix(length: Int): String =
    scala.util.Random.alphanumeric.take(length).mkString

  /** The file of a DV, or None for an inline one (or an unknown storage type).
    *
    * {{{
    * DvPaths.absolutePath("s3://mytable", "u", "ab^-aqEH.-t@S}K{vb[*k^")
    * // Some(s3://mytable/ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin)
    * }}}
    */
  def absolutePath(root: String, storageType: String, pathOrInlineDv: String): Option[Path] =
    storageType match {
      case "u" =>
        val encoded = pathOrInlineDv.takeRight(20)
        val prefix = pathOrInlineDv.dropRight(20)
        val name = fileName(uuid(encoded))
        val dir = if (prefix.isEmpty) new Path(root) else new Path(new Path(root), prefix)
        Some(new Path(dir, name))
      case "p" => Some(new Path(new URI(pathOrInlineDv)))
      case _   => None
    }

  /** The UUID a 20-character Z85 text encodes (16 bytes, big-endian); an IllegalArgumentException
    * for text that is not one.
    *
    * {{{
    * DvPaths.uuid("^-aqEH.-t@S}K{vb[*k^") // d2c639aa-8816-431a-aaf6-d3fe2512ff61
    * }}}
    */
  def uuid(z85: String): UUID = {
    require(z85.length == 20, s"a Z85 UUID has 20 characters, not ${z85.length}: $z85")
    val bytes = ByteBuffer.wrap(Z85.decode(z85))
    new UUID(bytes.getLong, bytes.getLong)
  }
}
