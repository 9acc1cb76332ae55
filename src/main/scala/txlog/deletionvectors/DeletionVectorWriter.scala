package txlog.deletionvectors

import java.io.{Closeable, IOException}
import java.util.UUID
import java.util.zip.CRC32

import scala.collection.mutable.ArrayBuffer
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FSDataOutputStream, Path}

import txlog.errors.TxlogErrors
import txlog.protocol.{DvPaths, TableConfiguration, Z85}
import txlog.util.SerializableConf

/** Writes deletion vectors into one new DV file, `<table>/<prefix>/deletion_vector_<id>.bin`, as
  * "Deletion Vector File Storage Format" says: the format version byte 1, then per DV its 4-byte
  * big-endian size, its bytes ([[RowIndexSet.serialize]]) and the big-endian CRC-32 of those bytes.
  * Each [[write]] returns the `u` descriptor of the DV just written (its offset is where its size
  * starts); several data files' DVs share the file, as delta-spark writes one file per task.
  *
  * The file is created on the first write through the table's Hadoop FileSystem, never over an
  * existing file; any storage failure propagates as it is. A descriptor may be committed only after
  * [[close]] returned: close checks that the file holds every byte written.
  *
  * {{{
  * val w = DeletionVectorWriter.open(root, hadoopConf)
  * val dv = try w.write(RowIndexSet.of(3L, 7L)) finally w.close()
  * }}}
  */
private[txlog] final class DeletionVectorWriter private (
    tableRoot: String,
    val id: UUID,
    prefix: String,
    conf: Configuration
) extends Closeable {

  /** The `pathOrInlineDv` of the DVs of this file. */
  val relativeText: String = DvPaths.relativeText(id, prefix)

  /** The file written. */
  val file: Path = DvPaths.absolutePath(tableRoot, "u", relativeText).get

  private var out: FSDataOutputStream = _
  private var written = 0L
  private var closed = false

  /** The bytes written so far (0 before the first DV: the file does not exist until then). */
  def size: Long = written

  /** Whether a DV of `bytes` serialized bytes may follow in a file of at most `limit` bytes; a file
    * holding no DV yet takes any DV (the offsets' 32 bits are [[write]]'s to check).
    */
  def fits(bytes: Long, limit: Long): Boolean = written <= 1 || written + 8 + bytes <= limit

  /** Appends the DV of `set` (not empty: an empty DV is no DV, the caller keeps the file without
    * one) and returns its descriptor.
    */
  def write(set: RowIndexSet): DvDescriptor = {
    if (closed) throw new IllegalStateException(s"The DV file $file is closed already.")
    if (set.isEmpty) {
      throw new IllegalArgumentException(
        "An empty deletion vector is not written: a file without deleted rows has no DV."
      )
    }
    val data = set.serialize()
    val offset = math.max(written, 1L)
    if (offset + 8L + data.length > Int.MaxValue) {
      throw new IllegalArgumentException(
        s"A DV of ${data.length} bytes at byte $offset of $file would end beyond the 32-bit " +
          "offsets of DV descriptors; write it into another file."
      )
    }
    if (out == null) {
      out = file.getFileSystem(conf).create(file, false)
      out.writeByte(DeletionVectorWriter.FormatVersion)
      written = 1L
    }
    val crc = new CRC32
    crc.update(data)
    out.writeInt(data.length)
    out.write(data)
    out.writeInt(crc.getValue.toInt)
    written += 8L + data.length
    DvDescriptor("u", relativeText, Some(offset.toInt), data.length, set.cardinality)
  }

  /** Closes the file (none was created when nothing was written) and checks its length. */
  override def close(): Unit = if (!closed) {
    closed = true
    if (out != null) {
      out.close()
      val length = file.getFileSystem(conf).getFileStatus(file).getLen
      if (length != written) {
        throw new IOException(
          s"The DV file $file has $length bytes after closing; $written were written."
        )
      }
    }
  }

  /** After a failure: closes the file quietly and deletes it (nothing may refer to it). */
  def abort(cause: Throwable): Unit = {
    closed = true
    if (out != null) {
      try out.close()
      catch { case NonFatal(e) => if (e ne cause) cause.addSuppressed(e) }
      try file.getFileSystem(conf).delete(file, false)
      catch { case NonFatal(e) => if (e ne cause) cause.addSuppressed(e) }
    }
  }
}

/** New DV files, inline DVs, and what a Spark task needs to write a table's DVs.
  *
  * delta-spark writes every DV of its DELETE, UPDATE and MERGE into files (`u`, prefixed as
  * [[txlog.protocol.DvPaths]] says); it never writes an inline DV into a log. Inline DVs are
  * written here only when asked for ([[inline]], or a [[Target]] with `inline`).
  *
  * {{{
  * val target = DeletionVectorWriter.Target(root, snap.version, snap.config, hadoopConf)
  * rdd.mapPartitions(it => target.writeAll(it).iterator) // (data file, DV): one file a task
  * }}}
  */
private[txlog] object DeletionVectorWriter {

  /** The only file format version there is ("Deletion Vector File Storage Format"). */
  val FormatVersion: Int = 1

  /** A writer of a new DV file `id` under directory `prefix` ("" for the table's root); nothing is
    * created before the first write. Example: `DeletionVectorWriter.open(root, conf, "ab")`.
    */
  def open(
      tableRoot: String,
      conf: Configuration,
      prefix: String = "",
      id: UUID = UUID.randomUUID()
  ): DeletionVectorWriter = new DeletionVectorWriter(tableRoot, id, prefix, conf)

  /** The inline (`i`) descriptor of `set` (not empty): its bytes in Z85, zero-padded to a multiple
    * of 4, with their unpadded size. Example:
    * `DeletionVectorWriter.inline(RowIndexSet.of(3L)).storageType`.
    */
  def inline(set: RowIndexSet): DvDescriptor = {
    if (set.isEmpty) {
      throw new IllegalArgumentException(
        "An empty deletion vector is not written: a file without deleted rows has no DV."
      )
    }
    val bytes = set.serialize()
    DvDescriptor("i", Z85.encode(bytes), None, bytes.length, set.cardinality)
  }

  /** What writing a table's DVs in Spark tasks needs, serializable: the table root, the version
    * whose DVs are merged with new deletions, the Hadoop configuration, the random prefix length of
    * new DV files, whether DVs go inline instead, and the size after which a task starts a new DV
    * file (the offsets are 32-bit).
    */
  final class Target(
      val tableRoot: String,
      val version: Long,
      conf: SerializableConf,
      val prefixLength: Int,
      val inline: Boolean,
      val maxFileBytes: Long
  ) extends Serializable {

    /** The DV of data file `dataFile` after deleting `added`: `existing` (its DV in [[version]],
      * loaded and checked as [[DeletionVectorStore.load]] does) merged with `added`. With
      * `numRecords` (the file's rows, its stats' `numRecords`), a row index at or beyond it is
      * INVALID_COMMIT_ACTIONS: a DV may only delete rows the file has.
      */
    def merged(
        dataFile: String,
        existing: Option[DvDescriptor],
        added: RowIndexSet,
        numRecords: Option[Long]
    ): RowIndexSet = {
      val old = existing.fold(RowIndexSet.empty) { dv =>
        DeletionVectorStore.load(tableRoot, version, dataFile, dv, conf.value)
      }
      val all = old.union(added)
      for (n <- numRecords; last <- all.last if last >= n) {
        throw TxlogErrors.invalidCommitActions(
          tableRoot,
          s"The deletion vector of $dataFile deletes row index $last, but the file has $n " +
            "rows (its numRecords): row indexes start at 0."
        )
      }
      all
    }

    /** Writes every set of `sets` (none empty) and returns their descriptors in the same order,
      * once the file they are in is closed: all into one new DV file, a new one started only when
      * one would grow beyond `maxFileBytes`; or inline, with `inline`. On any failure the files
      * this call created are deleted (best effort) and the failure propagates: no descriptor of a
      * file that may be incomplete is ever returned.
      */
    def writeAll[K](sets: Iterator[(K, RowIndexSet)]): Seq[(K, DvDescriptor)] = {
      val s = sink[K]()
      try sets.foreach { case (k, set) => s.add(k, set) }
      catch {
        case NonFatal(e) =>
          s.abort(e)
          throw e
      }
      s.finish()
    }

    /** [[writeAll]] for a writer given its sets one at a time (a Spark task's `DataWriter`):
      * [[Sink.add]] each, then [[Sink.finish]] for the descriptors, or [[Sink.abort]] on failure.
      */
    def sink[K](): Sink[K] = new Sink[K]

    /** The DV files of one writer, as [[writeAll]] writes them. */
    final class Sink[K] private[Target] () {
      private val done = ArrayBuffer.empty[(K, DvDescriptor)]
      private val opened = ArrayBuffer.empty[DeletionVectorWriter]
      private var w: DeletionVectorWriter = null

      /** Writes `set` (not empty), the DV of `key`. */
      def add(key: K, set: RowIndexSet): Unit =
        if (inline) done += key -> DeletionVectorWriter.inline(set)
        else {
          if (w == null || !w.fits(set.serializedSizeInBytes, maxFileBytes)) {
            if (w != null) w.close()
            w = open(tableRoot, conf.value, DvPaths.randomPrefix(prefixLength))
            opened += w
          }
          done += key -> w.write(set)
        }

      /** Closes the last file and returns every descriptor written, in order; on a failure, as
        * [[abort]].
        */
      def finish(): Seq[(K, DvDescriptor)] = {
        try if (w != null) w.close()
        catch {
          case NonFatal(e) =>
            abort(e)
            throw e
        }
        done.toSeq
      }

      /** Deletes every file this sink created (best effort, failures added to `cause`). */
      def abort(cause: Throwable): Unit = opened.foreach(_.abort(cause))
    }
  }

  object Target {

    /** The target of a table at `tableRoot` whose DVs as of `version` are merged with new
      * deletions, the new files prefixed as the table's `config` says ([[DvPaths.prefixLength]]).
      * Example: `DeletionVectorWriter.Target(root, snap.version, snap.config, hadoopConf)`.
      */
    def apply(
        tableRoot: String,
        version: Long,
        config: TableConfiguration,
        conf: Configuration,
        inline: Boolean = false,
        maxFileBytes: Long = Int.MaxValue.toLong
    ): Target = new Target(
      tableRoot,
      version,
      new SerializableConf(conf),
      DvPaths.prefixLength(config),
      inline,
      maxFileBytes
    )
  }
}
