package txlog.deletionvectors

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream}
import java.nio.{ByteBuffer, ByteOrder}

import org.roaringbitmap.RoaringBitmap
import org.scalatest.funsuite.AnyFunSuite

/** [[RowIndexSet]] on bytes this suite serializes itself ("Deletion Vector Format": the magic
  * number, then the portable 64-bit RoaringBitmap format): every container kind, gaps between
  * buckets, the largest key; Java serialization; and each malformed input a precise error.
  */
class RowIndexSetSuite extends AnyFunSuite with txlog.testing.Claimed {

  /** The serialized form of the buckets (key, 32-bit bitmap), in the given order. */
  private def serialized(
      buckets: Seq[(Int, RoaringBitmap)],
      magic: Int = RowIndexSet.MagicNumber,
      count: Option[Long] = None
  ): Array[Byte] = {
    val size = 12 + buckets.map(4 + _._2.serializedSizeInBytes).sum
    val out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN)
    out.putInt(magic).putLong(count.getOrElse(buckets.size.toLong))
    buckets.foreach { case (key, bitmap) => out.putInt(key); bitmap.serialize(out) }
    assert(!out.hasRemaining)
    out.array
  }

  /** The buckets of a set of row indexes, run-optimized (so with run containers). */
  private def buckets(rows: Seq[Long]): Seq[(Int, RoaringBitmap)] =
    rows.groupBy(r => (r >>> 32).toInt).toSeq.sortBy(_._1).map { case (key, rs) =>
      val b = RoaringBitmap.bitmapOf(rs.map(_.toInt): _*)
      b.runOptimize()
      key -> b
    }

  /** Arrays, a bitmap container, a run, low halves above 2^31, gaps, the largest key. */
  private val rows: Seq[Long] =
    (Seq(0L, 1L, 7L, 65535L, 65536L, 0x7fffffffL, 0x80000000L, 0xffffffffL) ++
      (200000L until 300000L by 3L) ++
      (1000000L until 1100000L) ++
      Seq(1L << 32, (1L << 32) + 5, (9L << 32) + 0xfffffffeL) ++
      (0L until 10L).map(i => (Int.MaxValue.toLong << 32) + i * 100000L)).sorted

  private val bytes = serialized(buckets(rows))

  private def malformed(bytes: Array[Byte], detail: String): Unit = {
    val e = intercept[IllegalArgumentException](RowIndexSet.parse(bytes))
    assert(e.getMessage.startsWith("The deletion vector is malformed: "), e.getMessage)
    assert(e.getMessage.contains(detail), e.getMessage)
  }

  test("every kind of container, gaps between buckets and the largest key") {
    assert(buckets(rows).exists(_._2.hasRunCompression))
    val set = RowIndexSet.parse(bytes)
    assert(set.iterator.toSeq === rows)
    assert(set.cardinality === rows.size.toLong)
    assert(rows.forall(set.contains))
    val members = rows.toSet
    val others = rows.flatMap(r => Seq(r - 1, r + 1)).filterNot(members) ++
      Seq(-1L, Long.MinValue, Long.MaxValue, 2L << 32, (Int.MaxValue.toLong << 32) + 1)
    assert(others.forall(r => !set.contains(r)))
  }

  test("a single bucket (the common case), an empty set, an empty bucket") {
    val one = RowIndexSet.parse(serialized(buckets(Seq(3L, 4L, 7L))))
    assert(one.iterator.toSeq === Seq(3L, 4L, 7L))
    assert(one.contains(4L) && !one.contains(5L) && !one.contains((1L << 32) + 4))
    val empty = RowIndexSet.parse(serialized(Nil))
    assert(empty.isEmpty && empty.cardinality === 0 && empty.iterator.isEmpty)
    assert(!empty.contains(0L))
    assert(RowIndexSet.empty.isEmpty)
    val hollow =
      RowIndexSet.parse(serialized(Seq(0 -> new RoaringBitmap, 2 -> RoaringBitmap.bitmapOf(1))))
    assert(hollow.iterator.toSeq === Seq((2L << 32) + 1))
  }

  test("Java serialization keeps the set") {
    val out = new ByteArrayOutputStream()
    val oos = new ObjectOutputStream(out)
    oos.writeObject(RowIndexSet.parse(bytes))
    oos.close()
    val back = new ObjectInputStream(new ByteArrayInputStream(out.toByteArray)).readObject()
    val set = back.asInstanceOf[RowIndexSet]
    assert(set.iterator.toSeq === rows)
    assert(set.cardinality === rows.size.toLong)
    assert(rows.forall(set.contains))
  }

  test("malformed: a wrong magic number") {
    malformed(serialized(Nil, magic = 1681511376), "1681511376 (of Delta's native bitmap format)")
    malformed(serialized(Nil, magic = Integer.reverseBytes(RowIndexSet.MagicNumber)), "big-endian")
    malformed(serialized(Nil, magic = 42), "its magic number is 42, not 1681511377")
  }

  test("malformed: every truncation") {
    val small = serialized(buckets(Seq(1L, 70000L, (3L << 32) + 2)))
    (0 until small.length).foreach { n =>
      val e = intercept[IllegalArgumentException](RowIndexSet.parse(small.take(n)))
      assert(e.getMessage.contains("The deletion vector is malformed"), s"$n bytes")
    }
    malformed(small.take(11), "fewer than the 12")
    malformed(small.take(12), "it says 2 buckets")
    Seq(100, 4000, 10000, bytes.length - 1).foreach { n =>
      malformed(bytes.take(n), "it ")
    }
  }

  test("malformed: a negative key, keys not ascending") {
    malformed(serialized(buckets(Seq(1L)).map(_.copy(_1 = -1))), "bucket 0 has the negative key -1")
    val two = buckets(Seq(1L, (5L << 32) + 1))
    malformed(serialized(two.reverse), "bucket 1 has the key 0, not above the key 5 of bucket 0")
    malformed(serialized(Seq(two.head, two.head)), "bucket 1 has the key 0, not above the key 0")
  }

  test("malformed: a bucket count the bytes cannot hold, bytes after the last bucket") {
    val one = buckets(Seq(1L))
    malformed(serialized(one, count = Some(-1L)), "it says -1 buckets")
    malformed(serialized(one, count = Some(Long.MaxValue)), s"it says ${Long.MaxValue} buckets")
    malformed(serialized(one, count = Some(0L)), "bytes follow the last of its 0 buckets")
    malformed(serialized(one) :+ 0.toByte, "1 bytes follow the last of its 1 buckets")
  }

  test("malformed: a bucket that is no 32-bit RoaringBitmap") {
    val b = serialized(buckets(Seq(1L)))
    b(16) = 0x11 // the bucket's cookie
    malformed(b, "bucket 0 of 1 (at byte 16)")
  }
}
