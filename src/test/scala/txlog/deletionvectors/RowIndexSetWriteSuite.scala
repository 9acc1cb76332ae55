package txlog.deletionvectors

import java.nio.file.{Files, Path => JPath, Paths}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.delta.deletionvectors.{RoaringBitmapArray, RoaringBitmapArrayFormat}
import org.scalatest.funsuite.AnyFunSuite

import txlog.Fixtures
import txlog.protocol.DvPaths

/** The writing side of [[RowIndexSet]] against delta-spark's `RoaringBitmapArray` (the oracle): a
  * set built from row indexes serializes to the bytes delta-spark's DV writer produces for the same
  * rows (it run-optimizes them as this builder does); a union holds the rows of delta-spark's
  * merge; every DV of the fixtures serializes back to the bytes it was read from; and
  * parse(serialize(x)) gives x's rows.
  */
class RowIndexSetWriteSuite extends AnyFunSuite with txlog.testing.Claimed {

  /** delta-spark's bytes for `rows`, as its bitmap aggregator leaves them for a new DV. */
  private def deltaSparkBytes(rows: Seq[Long]): Array[Byte] = {
    val b = RoaringBitmapArray(rows: _*)
    b.runOptimize()
    b.serializeAsByteArray(RoaringBitmapArrayFormat.Portable)
  }

  private def deltaSparkRows(bytes: Array[Byte]): Seq[Long] =
    RoaringBitmapArray.readFrom(bytes).values.toSeq

  /** Sets whose buckets are contiguous from key 0 (every set of a file below 2^32 rows). */
  private val contiguous: Seq[(String, Seq[Long])] = Seq(
    "one row" -> Seq(0L),
    "the spec's six rows" -> Seq(3L, 4L, 7L, 11L, 18L, 29L),
    "an array container at its limit" -> (0L until 8192L by 2L),
    "a bitmap container" -> (0L until 70000L by 3L),
    "a run" -> (1000L until 200000L),
    "runs and singles" -> ((0L until 5000L) ++ (9000L until 9100L by 7L) ++ (70000L until 90000L)),
    "low halves above 2^31" -> Seq(0x7fffffffL, 0x80000000L, 0xfffffffeL, 0xffffffffL),
    "two buckets" -> Seq(5L, 6L, (1L << 32) + 1, (1L << 32) + 70000)
  )

  contiguous.foreach { case (name, rows) =>
    test(s"built from row indexes, $name: delta-spark's bytes, and back") {
      val shuffled = new scala.util.Random(name.hashCode).shuffle(rows ++ rows.take(3))
      val set = RowIndexSet.of(shuffled: _*)
      val bytes = set.serialize()
      assert(bytes.toSeq === deltaSparkBytes(rows).toSeq)
      assert(set.serializedSizeInBytes === bytes.length.toLong)
      assert(set.cardinality === rows.size.toLong)
      assert(set.last === rows.lastOption)
      assert(RowIndexSet.parse(bytes).iterator.toSeq === rows)
      assert(deltaSparkRows(bytes) === rows)
    }
  }

  test("buckets with gaps: delta-spark reads the bytes to the same rows (it writes empty ones)") {
    val rows = Seq(5L, (3L << 32) + 2, (40L << 32) | 0xffffffffL)
    val bytes = RowIndexSet.of(rows: _*).serialize()
    assert(deltaSparkRows(bytes) === rows)
    assert(RowIndexSet.parse(bytes).iterator.toSeq === rows)
    // delta-spark's own bytes hold a bucket for every key up to 40; parsed, they serialize back
    val theirs = deltaSparkBytes(rows)
    assert(theirs.length > bytes.length)
    assert(RowIndexSet.parse(theirs).serialize().toSeq === theirs.toSeq)
  }

  test("the builder: repeats, any order, empty, negative indexes refused, reusable") {
    val b = RowIndexSet.builder()
    assert(b.result().isEmpty)
    assert(RowIndexSet.of().serialize().toSeq === deltaSparkBytes(Nil).toSeq)
    b.addAll(Seq(9L, 1L, 9L, 1L << 33)).add(4L)
    val set = b.result()
    assert(set.iterator.toSeq === Seq(1L, 4L, 9L, 1L << 33))
    assert(b.add(2L).result().iterator.toSeq === Seq(2L))
    assert(set.iterator.toSeq === Seq(1L, 4L, 9L, 1L << 33))
    val e = intercept[IllegalArgumentException](RowIndexSet.builder().add(-1L))
    assert(e.getMessage.contains("-1"))
    assert(RowIndexSet.empty.last === None)
  }

  private val unions: Seq[(String, Seq[Long], Seq[Long])] = Seq(
    ("disjoint", Seq(1L, 2L), Seq(7L, 9L)),
    ("overlapping", (0L until 5000L).toSeq, (4000L until 9000L).toSeq),
    ("a run into a bitmap", (0L until 70000L by 2L).toSeq, (1L until 70000L by 2L).toSeq),
    ("new buckets", Seq(3L), Seq((2L << 32) + 5, 4L)),
    ("with an empty set", Nil, Seq(8L))
  )

  unions.foreach { case (name, a, b) =>
    test(s"union, $name: the rows of delta-spark's merge") {
      val existing = RowIndexSet.parse(deltaSparkBytes(a))
      val before = existing.serialize().toSeq
      val merged = existing.union(RowIndexSet.of(b: _*))
      val theirs = RoaringBitmapArray(a: _*)
      theirs.merge(RoaringBitmapArray(b: _*))
      assert(merged.iterator.toSeq === theirs.values.toSeq)
      assert(merged.cardinality === theirs.cardinality)
      assert(deltaSparkRows(merged.serialize()) === theirs.values.toSeq)
      assert(existing.serialize().toSeq === before, "the union changed its input")
      assert(RowIndexSet.of(b: _*).union(existing).iterator.toSeq === theirs.values.toSeq)
    }
  }

  test("a union of two runs is run-optimized: no larger than delta-spark's bytes for its rows") {
    val merged = RowIndexSet.of(0L until 30000L: _*).union(RowIndexSet.of(30000L until 60000L: _*))
    assert(merged.serialize().toSeq === deltaSparkBytes(0L until 60000L).toSeq)
  }

  // ---- The fixtures' DVs: written by delta-spark, serialized back to the same bytes. --------

  private val mapper = new ObjectMapper()

  /** (DV file, offset, size) of every `u` DV in the fixtures' commits whose file is present (the
    * spark/ tables' files carry delta-spark's test prefix `test%dv%prefix-`).
    */
  private def fixtureDvs(): Seq[(JPath, Int, Int)] = {
    val found = for {
      table <- Fixtures.tables
      root = Fixtures.path(table)
      log = Paths.get(root, "_delta_log")
      commit <- Files.list(log).iterator().asScala.toSeq
      if commit.getFileName.toString.matches("\\d{20}\\.json")
      line <- Files.readAllLines(commit).asScala if line.contains("\"storageType\":\"u\"")
      kind <- Seq("add", "remove")
      action = mapper.readTree(line).get(kind) if action != null
      dv = action.get("deletionVector") if dv != null && !dv.isNull
      file <- DvPaths.absolutePath(root, "u", dv.get("pathOrInlineDv").asText).toSeq
      local = Paths.get(file.toUri.getPath)
      present <- Seq(local, local.resolveSibling("test%dv%prefix-" + local.getFileName))
        .find(Files.exists(_))
        .toSeq
    } yield (present, dv.get("offset").asInt, dv.get("sizeInBytes").asInt)
    found.distinct
  }

  test("every DV of the fixtures serializes back to the bytes delta-spark wrote") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val dvs = fixtureDvs()
    assert(dvs.size >= 20, dvs)
    dvs.foreach { case (file, offset, size) =>
      val all = Files.readAllBytes(file)
      val bytes = all.slice(offset + 4, offset + 4 + size)
      assert(bytes.length === size, s"$file@$offset")
      val set = RowIndexSet.parse(bytes)
      assert(set.serialize().toSeq === bytes.toSeq, s"$file@$offset")
      assert(set.iterator.toSeq === deltaSparkRows(bytes), s"$file@$offset")
      // built anew from their rows: run-optimized, so never larger (a DV delta-spark merged
      // into a file's old one is not run-optimized again, so the bytes may differ)
      val rebuilt = RowIndexSet.of(set.iterator.toSeq: _*).serialize()
      assert(rebuilt.length <= bytes.length, s"$file@$offset")
      assert(deltaSparkRows(rebuilt) === set.iterator.toSeq, s"$file@$offset")
    }
    info(s"${dvs.size} DVs")
  }
}
