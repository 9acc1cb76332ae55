package txlog.deletionvectors

import java.nio.{BufferUnderflowException, ByteBuffer, ByteOrder}

import scala.collection.mutable
import scala.util.control.NonFatal

import org.roaringbitmap.RoaringBitmap

/** The row indexes a deletion vector marks as deleted: an immutable set of non-negative 64-bit
  * integers, held as 32-bit RoaringBitmaps ("buckets") keyed by the high 32 bits of the indexes
  * they hold, in ascending key order. Serializable, so a reader or writer may ship it with a task.
  *
  * A set is parsed from a DV's bytes ([[RowIndexSet.parse]]) or built from row indexes
  * ([[RowIndexSet.of]], [[RowIndexSet.builder]]); [[union]] merges new deletions into a file's
  * existing DV and [[serialize]] gives the bytes to store. No method changes a set's bitmaps.
  *
  * {{{
  * val deleted = RowIndexSet.parse(bytes) // bytes of "Deletion Vector Format"
  * deleted.contains(42L)                  // is row 42 of the data file deleted?
  * deleted.cardinality                    // how many rows are
  * val merged = deleted.union(RowIndexSet.of(3L, 7L))
  * }}}
  */
@SerialVersionUID(1L)
private[txlog] final class RowIndexSet private (
    private val keys: Array[Int],
    private val buckets: Array[RoaringBitmap]
) extends Serializable {

  /** How many row indexes the set holds. */
  val cardinality: Long = buckets.foldLeft(0L)(_ + _.getLongCardinality)

  def isEmpty: Boolean = cardinality == 0

  /** Whether `rowIndex` is in the set (called for every row a reader reads). */
  def contains(rowIndex: Long): Boolean = {
    // A negative index has a high half above 2^31 - 1, so a negative key no bucket has.
    val high = (rowIndex >>> 32).toInt
    val at =
      if (keys.length == 1) { if (keys(0) == high) 0 else -1 }
      else java.util.Arrays.binarySearch(keys, high)
    at >= 0 && buckets(at).contains(rowIndex.toInt)
  }

  /** The row indexes in ascending order. */
  def iterator: Iterator[Long] =
    keys.indices.iterator.flatMap { i =>
      val high = keys(i).toLong << 32
      val low = buckets(i).getIntIterator
      new Iterator[Long] {
        def hasNext: Boolean = low.hasNext
        def next(): Long = high | Integer.toUnsignedLong(low.next())
      }
    }

  /** The largest row index of the set (None when it is empty). */
  def last: Option[Long] =
    keys.indices.reverseIterator.find(i => !buckets(i).isEmpty).map { i =>
      (keys(i).toLong << 32) | Integer.toUnsignedLong(buckets(i).last())
    }

  /** The row indexes of this set and of `other`: a file's existing DV merged with new deletions.
    * The result keeps the buckets that hold a row index, each run-optimized (the smallest of the
    * three container kinds); a set is returned as it is when the other one is empty.
    *
    * {{{
    * val merged = DeletionVectorStore.load(root, v, file, dv, conf).union(RowIndexSet.of(5L))
    * }}}
    */
  def union(other: RowIndexSet): RowIndexSet =
    if (other.isEmpty) this
    else if (isEmpty) other
    else {
      val all = (keys ++ other.keys).distinct.sorted
      val merged = all.map { k =>
        // a new bitmap either way: the inputs' bitmaps stay as they are
        val b = (bucketAt(k), other.bucketAt(k)) match {
          case (Some(x), Some(y)) => RoaringBitmap.or(x, y)
          case (x, y)             => x.orElse(y).get.clone()
        }
        b.runOptimize()
        b
      }
      val kept = all.indices.filterNot(i => merged(i).isEmpty)
      new RowIndexSet(kept.map(i => all(i)).toArray, kept.map(i => merged(i)).toArray)
    }

  private def bucketAt(key: Int): Option[RoaringBitmap] = {
    val at = java.util.Arrays.binarySearch(keys, key)
    if (at >= 0) Some(buckets(at)) else None
  }

  /** The size of [[serialize]]'s bytes: the magic number, the bucket count, each bucket's key and
    * standard 32-bit serialization.
    */
  def serializedSizeInBytes: Long =
    12L + buckets.foldLeft(0L)((sum, b) => sum + 4L + b.serializedSizeInBytes)

  /** The set in "Deletion Vector Format": the magic number 1681511377, the bucket count (8 bytes),
    * then per bucket in ascending key order its key (4 bytes) and its RoaringBitmap in the standard
    * 32-bit serialization, all little-endian. Buckets are written as held, so a parsed set gives
    * back the bytes it was parsed from.
    *
    * {{{
    * RowIndexSet.parse(RowIndexSet.of(3L, 4L).serialize()).iterator.toList // List(3, 4)
    * }}}
    */
  def serialize(): Array[Byte] = {
    val size = serializedSizeInBytes
    if (size > Int.MaxValue - 8) {
      throw new IllegalArgumentException(
        s"A deletion vector of $size bytes is larger than a DV file's 32-bit offsets allow."
      )
    }
    val out = ByteBuffer.allocate(size.toInt).order(ByteOrder.LITTLE_ENDIAN)
    out.putInt(RowIndexSet.MagicNumber).putLong(keys.length.toLong)
    keys.indices.foreach { i =>
      out.putInt(keys(i))
      buckets(i).serialize(out)
    }
    if (out.hasRemaining) {
      throw new IllegalStateException(s"${out.remaining} bytes of $size left unwritten")
    }
    out.array
  }

  override def toString: String =
    s"RowIndexSet($cardinality row indexes in ${keys.length} buckets)"
}

/** Parses Delta's serialized deletion vector ("Deletion Vector Format"): a 4-byte little-endian
  * magic number 1681511377, then a 64-bit RoaringBitmap in the portable format of the RoaringBitmap
  * specification (an 8-byte little-endian bucket count; per bucket, ascending, a 4-byte
  * little-endian key, the high 32 bits of its values, and a standard 32-bit RoaringBitmap).
  * Malformed bytes raise an IllegalArgumentException whose message says what is wrong and where.
  *
  * {{{
  * RowIndexSet.parse(Z85.decode(inlineDv, sizeInBytes)).iterator.toList
  * }}}
  */
private[txlog] object RowIndexSet {

  /** The magic number of the portable format, the one Delta writes. */
  val MagicNumber: Int = 1681511377

  /** Delta's older native format, which this parser does not read. */
  private val NativeMagicNumber = 1681511376

  /** The smallest serialized 32-bit RoaringBitmap: its cookie and container count. */
  private val MinBucketBytes = 8

  val empty: RowIndexSet = new RowIndexSet(Array.empty, Array.empty)

  /** The set of `rows` (non-negative row indexes, in any order, repeats ignored).
    *
    * {{{
    * RowIndexSet.of(3L, 4L, 7L).cardinality // 3
    * }}}
    */
  def of(rows: Long*): RowIndexSet = builder().addAll(rows).result()

  /** A builder of a set, row index by row index (a task's deleted rows as it finds them).
    *
    * {{{
    * val b = RowIndexSet.builder()
    * rowIndexes.foreach(b.add)
    * val set = b.result()
    * }}}
    */
  def builder(): Builder = new Builder

  /** Collects row indexes; [[result]] gives the set, its buckets run-optimized as delta-spark's
    * bitmap aggregator leaves them (so the set serializes to the bytes delta-spark writes for the
    * same rows when the rows' buckets are contiguous from key 0, which they always are below 2^32^
    * rows; delta-spark also writes an empty bucket for every key missing below the largest, which
    * this set does not: the spec's format needs none). A negative row index is an
    * IllegalArgumentException. Not thread-safe.
    */
  final class Builder private[RowIndexSet] () {
    private val held = mutable.HashMap.empty[Int, RoaringBitmap]
    private var lastKey = -1
    private var lastBucket: RoaringBitmap = _

    /** Adds `rowIndex`. Example: `builder.add(42L)`. */
    def add(rowIndex: Long): Builder = {
      if (rowIndex < 0) {
        throw new IllegalArgumentException(s"A row index is not negative: $rowIndex")
      }
      val key = (rowIndex >>> 32).toInt
      if (key != lastKey) {
        lastBucket = held.getOrElseUpdate(key, new RoaringBitmap)
        lastKey = key
      }
      lastBucket.add(rowIndex.toInt)
      this
    }

    /** Adds every row index of `rows`. Example: `builder.addAll(Seq(1L, 2L))`. */
    def addAll(rows: Iterable[Long]): Builder = {
      rows.iterator.foreach(add)
      this
    }

    /** The set of the row indexes added; the builder is empty again afterwards. Example:
      * `builder.result().cardinality`.
      */
    def result(): RowIndexSet = {
      val keys = held.keys.toArray.sorted
      val buckets = keys.map { k =>
        val b = held(k)
        b.runOptimize()
        b
      }
      held.clear()
      lastKey = -1
      lastBucket = null
      new RowIndexSet(keys, buckets)
    }
  }

  /** The set `bytes` serializes. */
  def parse(bytes: Array[Byte]): RowIndexSet = {
    val in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN)
    if (in.remaining < 12) {
      malformed(s"it has ${bytes.length} bytes, fewer than the 12 of a magic number and a count")
    }
    val magic = in.getInt
    if (magic != MagicNumber)
      malformed(s"its magic number is ${described(magic)}, not $MagicNumber")
    val count = in.getLong
    if (count < 0 || count > in.remaining / (4 + MinBucketBytes)) {
      malformed(s"it says $count buckets, but ${in.remaining} bytes cannot hold that many")
    }
    val n = count.toInt
    val keys = new Array[Int](n)
    val buckets = new Array[RoaringBitmap](n)
    var i = 0
    while (i < n) {
      if (in.remaining < 4) malformed(s"it ends before the key of bucket $i of $n")
      val key = in.getInt
      if (key < 0) {
        malformed(s"bucket $i has the negative key $key (the protocol requires keys below 2^31)")
      }
      if (i > 0 && key <= keys(i - 1)) {
        malformed(
          s"bucket $i has the key $key, not above the key ${keys(i - 1)} of bucket ${i - 1}"
        )
      }
      keys(i) = key
      buckets(i) = bucket(in, i, n)
      i += 1
    }
    if (in.hasRemaining) {
      malformed(s"${in.remaining} bytes follow the last of its $n buckets")
    }
    new RowIndexSet(keys, buckets)
  }

  /** The 32-bit bitmap at the buffer's position, which then moves past it. */
  private def bucket(in: ByteBuffer, i: Int, n: Int): RoaringBitmap = {
    val start = in.position()
    val bitmap = new RoaringBitmap
    try bitmap.deserialize(in.slice().order(ByteOrder.LITTLE_ENDIAN))
    catch {
      case e: BufferUnderflowException =>
        malformed(s"it ends inside bucket $i of $n (at byte $start)", e)
      case e: IndexOutOfBoundsException =>
        malformed(s"it ends inside bucket $i of $n (at byte $start)", e)
      case NonFatal(e) =>
        malformed(s"bucket $i of $n (at byte $start) is not a 32-bit RoaringBitmap: $e", e)
    }
    val size = bitmap.serializedSizeInBytes
    if (size > in.remaining) malformed(s"it ends inside bucket $i of $n (at byte $start)")
    in.position(start + size)
    bitmap
  }

  /** A wrong magic number, and the format it would be the magic of, if any. */
  private def described(magic: Int): String = {
    val swapped = Integer.reverseBytes(magic)
    if (magic == NativeMagicNumber) s"$magic (of Delta's native bitmap format)"
    else if (swapped == MagicNumber) s"$magic ($MagicNumber written big-endian)"
    else if (swapped == NativeMagicNumber) {
      s"$magic ($NativeMagicNumber, of Delta's native bitmap format, written big-endian)"
    } else magic.toString
  }

  private def malformed(detail: String, cause: Throwable = null): Nothing =
    throw new IllegalArgumentException(s"The deletion vector is malformed: $detail.", cause)
}
