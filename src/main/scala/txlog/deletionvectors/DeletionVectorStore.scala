package txlog.deletionvectors

import java.io.{EOFException, FileNotFoundException}
import java.net.URISyntaxException
import java.util.zip.CRC32

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{ChecksumException, Path}

import txlog.TxlogException
import txlog.errors.TxlogErrors
import txlog.protocol.{DvPaths, Z85}

/** Loads the row indexes a deletion vector descriptor marks as deleted in one data file.
  *
  * An inline DV (`i`) is Z85 text in the log. A DV in a file (`u`, relative to the table; `p`, an
  * absolute path) is read as "Deletion Vector File Storage Format" says: a version byte 1 at the
  * start of the file, then at the descriptor's offset (1 when absent) the 4-byte big-endian size of
  * the DV, which must be the descriptor's `sizeInBytes`, the serialized bitmap, and the big-endian
  * CRC-32 of the bitmap. Either way the bitmap must hold `cardinality` row indexes.
  *
  * Errors name the table version and the data file: DELETION_VECTOR_NOT_FOUND for a missing file,
  * DELETION_VECTOR_CORRUPT for anything the log or the file gets wrong (including a Hadoop
  * ChecksumException: the file system's own checksum, such as a local `.crc` file, disagrees with
  * the bytes). Other I/O failures are storage failures and propagate unchanged. A pure function:
  * nothing is cached.
  *
  * {{{
  * val dv = DvDescriptor("u", "ab^-aqEH.-t@S}K{vb[*k^", Some(1), 34, 1L)
  * val deleted = DeletionVectorStore.load("s3://b/t", 7L, "part-0.parquet", dv, hadoopConf)
  * rows.zipWithIndex.filterNot { case (_, i) => deleted.contains(i.toLong) }
  * }}}
  */
private[txlog] object DeletionVectorStore {

  /** Where an inline DV is, for errors. */
  val InLogInline = "the log (inline)"

  /** Where a descriptor naming no readable DV is, for errors. */
  val InLog = "the log"

  /** The only file format version there is. */
  private val FormatVersion = 1

  def load(
      tableRoot: String,
      version: Long,
      dataFile: String,
      dv: DvDescriptor,
      conf: Configuration
  ): RowIndexSet = {
    val at = new At(tableRoot, version, dataFile, dv)
    if (dv.pathOrInlineDv == null) throw at.corrupt(InLog, "Its pathOrInlineDv is null.")
    if (dv.sizeInBytes < 0) {
      throw at.corrupt(InLog, s"Its sizeInBytes is negative (${dv.sizeInBytes}).")
    }
    dv.storageType match {
      case "i" =>
        val bytes =
          try Z85.decode(dv.pathOrInlineDv, dv.sizeInBytes)
          catch {
            case e: IllegalArgumentException =>
              throw at.corrupt(InLogInline, s"Its text is not the Z85 of the DV: ${e.getMessage}.")
          }
        at.parse(bytes, InLogInline)
      case "u" | "p" =>
        val path = file(at)
        at.parse(read(at, path, conf), path.toString)
      case other =>
        throw at.corrupt(
          InLog,
          s"Its storageType is '$other'; the protocol knows 'u' (a file in the table), " +
            "'p' (a file at an absolute path) and 'i' (inline)."
        )
    }
  }

  /** The DV file a `u` or `p` descriptor names. */
  private def file(at: At): Path = {
    val dv = at.dv
    val named =
      try DvPaths.absolutePath(at.tableRoot, dv.storageType, dv.pathOrInlineDv)
      catch {
        case e @ (_: IllegalArgumentException | _: URISyntaxException) =>
          throw at.corrupt(InLog, s"Its pathOrInlineDv '${dv.pathOrInlineDv}' names no file: $e")
      }
    named.filter(p => dv.storageType == "u" || p.isUriPathAbsolute).getOrElse {
      throw at.corrupt(InLog, s"Its pathOrInlineDv '${dv.pathOrInlineDv}' is not absolute.")
    }
  }

  /** The checked bitmap bytes of the DV in `path`. */
  private def read(at: At, path: Path, conf: Configuration): Array[Byte] = {
    val where = path.toString
    val offset = at.dv.offset.getOrElse(1)
    val size = at.dv.sizeInBytes
    if (offset < 1) {
      throw at.corrupt(where, s"Its offset is $offset, before the first DV (at byte 1).")
    }
    try {
      val in = path.getFileSystem(conf).open(path)
      try {
        val formatVersion = in.read()
        if (formatVersion != FormatVersion) {
          throw at.corrupt(
            where,
            if (formatVersion < 0) "The file is empty."
            else s"Its format version (byte 0) is $formatVersion; the protocol has only 1."
          )
        }
        in.seek(offset.toLong)
        val stored = in.readInt()
        if (stored != size) {
          throw at.corrupt(
            where,
            s"The DV at byte $offset says it has $stored bytes; the log says sizeInBytes $size."
          )
        }
        val data = new Array[Byte](size)
        in.readFully(data)
        val storedCrc = in.readInt()
        val crc = new CRC32
        crc.update(data)
        if (crc.getValue.toInt != storedCrc) {
          throw at.corrupt(
            where,
            f"Checksum mismatch: the CRC-32 of the $size bytes at byte ${offset + 4} is " +
              f"${crc.getValue}%08x, the file says ${storedCrc}%08x."
          )
        }
        data
      } finally in.close()
    } catch {
      case e: FileNotFoundException =>
        throw TxlogErrors.deletionVectorNotFound(at.tableRoot, at.version, at.dataFile, where, e)
      case e: ChecksumException =>
        throw at.corrupt(
          where,
          s"Checksum mismatch: the file system's checksum of the file disagrees with its bytes: $e"
        )
      case e: EOFException =>
        throw at.corrupt(
          where,
          s"The file ends before the end of the DV at byte $offset (sizeInBytes $size, plus 4 " +
            s"bytes of size and 4 of checksum): $e"
        )
    }
  }

  /** The DV a load is about, and the errors about it. */
  private final class At(
      val tableRoot: String,
      val version: Long,
      val dataFile: String,
      val dv: DvDescriptor
  ) {
    def corrupt(where: String, detail: String): TxlogException =
      TxlogErrors.deletionVectorCorrupt(tableRoot, version, dataFile, where, detail)

    /** The set `bytes` serializes, which must hold the descriptor's cardinality. */
    def parse(bytes: Array[Byte], where: String): RowIndexSet = {
      val set =
        try RowIndexSet.parse(bytes)
        catch { case e: IllegalArgumentException => throw corrupt(where, e.getMessage) }
      if (set.cardinality != dv.cardinality) {
        throw corrupt(
          where,
          s"It holds ${set.cardinality} row indexes; the log says cardinality ${dv.cardinality}."
        )
      }
      set
    }
  }
}
