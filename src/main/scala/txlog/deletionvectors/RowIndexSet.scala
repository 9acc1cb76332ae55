package txlog.deletionvectors

import java.nio.{BufferUnderflowException, ByteBuffer, ByteOrder}

import scala.util.control.NonFatal

import org.roaringbitmap.RoaringBitmap

/** The row indexes a deletion vector marks as deleted: an immutable set of non-negative 64-bit
  * integers, held as 32-bit RoaringBitmaps ("buckets") keyed by the high 32 bits of the indexes
  * they hold, in ascending key order. Serializable, so a reader may ship it with a task.
  *
  * {{{
  * val deleted = RowIndexSet.parse(bytes) // bytes of "Deletion Vector Format"
  * deleted.contains(42L)                  // is row 42 of the data file deleted?
  * deleted.cardinality                    // how many rows are
  * }}}
  */
@SerialVersionUID(1L)
private[txlog] final class RowIndexSet private (
    keys: Array[Int],
    buckets: Array[RoaringBitmap]
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
