package txlog.deletionvectors

import java.io._
import java.nio.file.{Files, Path => JPath}
import java.util.UUID

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileAlreadyExistsException, Path}
import org.apache.spark.sql.delta.actions.DeletionVectorDescriptor
import org.apache.spark.sql.delta.deletionvectors.{
  RoaringBitmapArray,
  RoaringBitmapArrayFormat,
  StoredBitmap
}
import org.apache.spark.sql.delta.storage.dv.HadoopFileSystemDVStore
import org.apache.spark.sql.delta.util.{JsonUtils, PathWithFileSystem}
import org.scalatest.funsuite.AnyFunSuite

import txlog.{ErrorClasses, Metadata, Protocol, TxlogException}
import txlog.protocol.TableConfiguration
import txlog.testing.{Fault, FaultInjectingFileSystem}

/** [[DeletionVectorWriter]]: its DV files are the bytes delta-spark's own DV writer produces for
  * the same DVs, delta-spark's DV store reads every DV at the offset its descriptor names (with and
  * without a prefix directory), inline descriptors are delta-spark's `inlineInLog`, and
  * descriptors' JSON and unique ids are delta-spark's. Storage failures propagate and leave no DV
  * file behind; an existing file is never overwritten.
  */
class DeletionVectorWriterSuite extends AnyFunSuite with txlog.testing.Claimed {
  private val conf = new Configuration()
  private def tempDir(): JPath = txlog.testing.TempDirs.create("txlog-dvw")

  private val sets: Seq[Seq[Long]] = Seq(
    Seq(3L, 4L, 7L, 11L, 18L, 29L),
    (1000L until 90000L).toSeq,
    (0L until 70000L by 3L).toSeq,
    Seq(0L)
  )

  private def deltaSparkBytes(rows: Seq[Long]): Array[Byte] = {
    val b = RoaringBitmapArray(rows: _*)
    b.runOptimize()
    b.serializeAsByteArray(RoaringBitmapArrayFormat.Portable)
  }

  private def theirs(d: DvDescriptor): DeletionVectorDescriptor =
    DeletionVectorDescriptor(
      d.storageType,
      d.pathOrInlineDv,
      d.offset,
      d.sizeInBytes,
      d.cardinality
    )

  /** The rows delta-spark's DV store reads for descriptor `d` of the table at `root`. */
  private def deltaSparkRows(root: String, d: DvDescriptor): Seq[Long] =
    StoredBitmap
      .create(theirs(d), new Path(root))
      .load(new HadoopFileSystemDVStore(conf))
      .values
      .toSeq

  private def dvFiles(dir: JPath): Seq[JPath] = {
    val walk = Files.walk(dir)
    try
      walk
        .iterator()
        .asScala
        .filter(p => Files.isRegularFile(p) && !p.getFileName.toString.startsWith("."))
        .toSeq
    finally walk.close()
  }

  test("one file of several DVs: delta-spark's DV writer writes the same bytes") {
    val root = tempDir()
    val id = UUID.randomUUID()
    val w = DeletionVectorWriter.open(root.toString, conf, "", id)
    val dvs = sets.map(rows => w.write(RowIndexSet.of(rows: _*)))
    w.close()
    val file = root.resolve(s"deletion_vector_$id.bin")
    assert(dvFiles(root) === Seq(file))
    // delta-spark's writer, given its own bytes of the same sets
    val other = tempDir().resolve("dv.bin")
    val writer = new HadoopFileSystemDVStore(conf)
      .createWriter(PathWithFileSystem.withConf(new Path(other.toUri), conf))
    val ranges = sets.map(rows => writer.write(deltaSparkBytes(rows)))
    writer.close()
    assert(Files.readAllBytes(file).toSeq === Files.readAllBytes(other).toSeq)
    assert(Files.readAllBytes(file)(0) === 1) // "the format version of this file: 1"
    assert(dvs.map(_.offset) === ranges.map(r => Some(r.offset)))
    assert(dvs.head.offset === Some(1))
    dvs.zip(sets).foreach { case (dv, rows) =>
      assert(dv.storageType === "u" && dv.pathOrInlineDv.length === 20)
      assert(dv.cardinality === rows.size.toLong)
      assert(dv.sizeInBytes === deltaSparkBytes(rows).length)
      assert(deltaSparkRows(root.toString, dv) === rows)
      assert(DeletionVectorStore.load(root.toString, 1L, "f", dv, conf).iterator.toSeq === rows)
    }
  }

  test("a prefix: the file in that directory of the table, where delta-spark finds it") {
    val root = tempDir()
    val w = DeletionVectorWriter.open(root.toString, conf, "x7")
    val dv = w.write(RowIndexSet.of(sets.head: _*))
    w.close()
    assert(dv.pathOrInlineDv.startsWith("x7") && dv.pathOrInlineDv.length === 22)
    assert(dvFiles(root) === Seq(root.resolve("x7").resolve(s"deletion_vector_${w.id}.bin")))
    assert(theirs(dv).absolutePath(new Path(root.toString)).toString === w.file.toString)
    assert(deltaSparkRows(root.toString, dv) === sets.head)
  }

  private def config(props: (String, String)*): TableConfiguration = TableConfiguration(
    Protocol(3, 7, Some(Set("deletionVectors")), Some(Set("deletionVectors"))),
    Metadata("id", None, None, "parquet", Map.empty, "{}", Nil, props.toMap, None)
  )

  test("a task's files: prefixed as the table says, each DV read back by delta-spark") {
    val prefixed =
      config("delta.randomizeFilePrefixes" -> "true", "delta.randomPrefixLength" -> "3")
    Seq(config() -> 20, config("delta.randomizeFilePrefixes" -> "true") -> 22, prefixed -> 23)
      .foreach { case (c, length) =>
        val root = tempDir().toString
        val target = DeletionVectorWriter.Target(root, 1L, c, conf)
        val out = target.writeAll(sets.zipWithIndex.map { case (r, i) =>
          i -> RowIndexSet.of(r: _*)
        }.iterator)
        assert(out.map(_._1) === sets.indices)
        assert(out.map(_._2.pathOrInlineDv).distinct.size === 1)
        out.foreach { case (i, dv) =>
          assert(dv.pathOrInlineDv.length === length)
          assert(deltaSparkRows(root, dv) === sets(i))
        }
      }
  }

  test("a task starts a new file only past maxFileBytes; a serialized Target writes too") {
    val root = tempDir().toString
    val t = DeletionVectorWriter.Target(root, 1L, config(), conf, maxFileBytes = 100L)
    val bytes = new ByteArrayOutputStream()
    new ObjectOutputStream(bytes).writeObject(t)
    val shipped = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray))
      .readObject()
      .asInstanceOf[DeletionVectorWriter.Target]
    val small = (1 to 6).map(i => Seq(i.toLong, i * 10L))
    val out =
      shipped.writeAll(small.zipWithIndex.map(x => x._2 -> RowIndexSet.of(x._1: _*)).iterator)
    val files = dvFiles(java.nio.file.Paths.get(root))
    assert(files.size > 1 && files.size < small.size, files)
    files.foreach(f => assert(Files.size(f) <= 100L, f))
    out.foreach { case (i, dv) => assert(deltaSparkRows(root, dv) === small(i)) }
  }

  test("never over an existing file; an empty set is no DV") {
    val root = tempDir()
    val id = UUID.randomUUID()
    val first = DeletionVectorWriter.open(root.toString, conf, "", id)
    first.write(RowIndexSet.of(1L))
    first.close()
    val before = Files.readAllBytes(root.resolve(s"deletion_vector_$id.bin")).toSeq
    val again = DeletionVectorWriter.open(root.toString, conf, "", id)
    intercept[FileAlreadyExistsException](again.write(RowIndexSet.of(2L)))
    assert(Files.readAllBytes(root.resolve(s"deletion_vector_$id.bin")).toSeq === before)
    val empty = DeletionVectorWriter.open(root.toString, conf)
    intercept[IllegalArgumentException](empty.write(RowIndexSet.empty))
    intercept[IllegalArgumentException](DeletionVectorWriter.inline(RowIndexSet.empty))
    empty.close()
    assert(dvFiles(root).size === 1)
  }

  test("a storage failure creating the file propagates, and no DV file is left") {
    val root = tempDir()
    val faulty = new Configuration()
    FaultInjectingFileSystem.conf.foreach { case (k, v) =>
      faulty.set(k.stripPrefix("spark.hadoop."), v)
    }
    FaultInjectingFileSystem.reset()
    try {
      FaultInjectingFileSystem.failMatching("create", "deletion_vector_.*\\.bin", Fault.Io)
      val t = DeletionVectorWriter.Target(
        s"${FaultInjectingFileSystem.Scheme}://$root",
        1L,
        config(),
        faulty
      )
      val e = intercept[IOException](t.writeAll(Iterator(1 -> RowIndexSet.of(5L))))
      assert(e.getMessage.contains("injected"), e.getMessage)
      assert(dvFiles(root).isEmpty)
    } finally FaultInjectingFileSystem.reset()
  }

  test("a task failing after its first file: the files it wrote are deleted") {
    val root = tempDir()
    val t = DeletionVectorWriter.Target(root.toString, 1L, config(), conf, maxFileBytes = 50L)
    val input = Iterator.tabulate(3) { i =>
      if (i < 2) i -> RowIndexSet.of(i.toLong) else throw new IllegalStateException("task failed")
    }
    intercept[IllegalStateException](t.writeAll(input))
    assert(dvFiles(root).isEmpty)
  }

  test("inline DVs: delta-spark's inlineInLog descriptor, which it reads") {
    val root = tempDir().toString
    val t = DeletionVectorWriter.Target(root, 1L, config(), conf, inline = true)
    val out = t.writeAll(sets.map(r => r -> RowIndexSet.of(r: _*)).iterator)
    out.foreach { case (rows, dv) =>
      val d = DeletionVectorDescriptor.inlineInLog(deltaSparkBytes(rows), rows.size.toLong)
      assert(dv === DvDescriptor("i", d.pathOrInlineDv, None, d.sizeInBytes, d.cardinality))
      assert(deltaSparkRows(root, dv) === rows)
    }
    assert(dvFiles(java.nio.file.Paths.get(root)).isEmpty)
  }

  test("a descriptor's JSON and unique id are delta-spark's") {
    val dvs = Seq(
      DvDescriptor("u", "ab^-aqEH.-t@S}K{vb[*k^", Some(4), 40, 6L),
      DvDescriptor("i", "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", None, 40, 6L),
      DvDescriptor("p", "s3://mytable/deletion_vector_d2c639aa.bin", Some(1), 36, 2L)
    )
    dvs.foreach { dv =>
      assert(dv.toJson === JsonUtils.toJson(theirs(dv)))
      assert(dv.uniqueId === theirs(dv).uniqueId)
      assert(DvDescriptor.fromRow(dv.toRow) === dv)
    }
    assert(dvs.head.uniqueId === "uab^-aqEH.-t@S}K{vb[*k^@4") // the spec's rule, by hand
  }

  test("merged: the file's DV in the table with the new rows; rows past numRecords refused") {
    val root = tempDir().toString
    val w = DeletionVectorWriter.open(root, conf)
    val existing = w.write(RowIndexSet.of(2L, 3L, 9L))
    w.close()
    val t = DeletionVectorWriter.Target(root, 5L, config(), conf)
    val merged = t.merged("part-0.parquet", Some(existing), RowIndexSet.of(3L, 4L), Some(10L))
    val ref = RoaringBitmapArray(2L, 3L, 9L)
    ref.merge(RoaringBitmapArray(3L, 4L))
    assert(merged.iterator.toSeq === ref.values.toSeq)
    assert(t.merged("f", None, RowIndexSet.of(4L), None).iterator.toSeq === Seq(4L))
    val e = intercept[TxlogException](
      t.merged("part-0.parquet", Some(existing), RowIndexSet.of(4L), Some(9L))
    )
    assert(e.errorClass === ErrorClasses.InvalidCommitActions)
    assert(e.getMessage.contains("part-0.parquet") && e.getMessage.contains("row index 9"))
  }
}
