package txlog.deletionvectors

import java.io.IOException
import java.nio.ByteBuffer
import java.nio.file.{Files, Path => JPath, Paths}
import java.util.zip.CRC32

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.apache.commons.io.FileUtils
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.delta.actions.DeletionVectorDescriptor
import org.apache.spark.sql.delta.deletionvectors.{
  RoaringBitmapArray,
  RoaringBitmapArrayFormat,
  StoredBitmap
}
import org.apache.spark.sql.delta.storage.dv.HadoopFileSystemDVStore
import org.apache.spark.sql.delta.util.Codec.Base85Codec
import org.scalatest.funsuite.AnyFunSuite

import txlog.protocol.Z85
import txlog.{ErrorClasses, Fixtures, TxlogException}
import txlog.protocol.DvPaths
import txlog.testing.{Fault, FaultInjectingFileSystem}

/** [[DeletionVectorStore.load]] against delta-spark's own DV reader: every deletion vector in the
  * logs of the shared fixtures (and inline ones delta-spark serializes) decodes to the same row
  * indexes; and each way a DV can be missing or corrupt gives its typed error, naming the data file
  * and the version.
  */
class DeletionVectorStoreSuite extends AnyFunSuite with txlog.testing.Claimed {
  private val conf = new Configuration()
  private val mapper = new ObjectMapper()
  private def tempDir(): JPath = txlog.testing.TempDirs.create("txlog-dv")

  /** A DV as a commit of a table records it, on an add or remove. */
  private case class Logged(root: String, version: Long, dataFile: String, dv: DvDescriptor)

  /** The fixtures whose logs have deletion vectors. */
  private val dvTables = Seq(
    "golden/dv-partitioned-with-checkpoint",
    "golden/dv-with-columnmapping",
    "golden/log-replay-dv-key-cases",
    "kernel/basic-dv-no-checkpoint",
    "kernel/basic-dv-with-checkpoint",
    "spark/partitioned-table-with-dv-large",
    "spark/table-with-dv-gigantic",
    "spark/table-with-dv-large",
    "spark/table-with-dv-small",
    "spark/table-with-dv-special-char"
  )

  /** The fixture whose DV file the shared copy lacks (too large for the mirror). */
  private val dvFileMissing = "spark/table-with-dv-gigantic"

  /** Every distinct DV of the table's commits, at the first version that records it. */
  private def logged(table: String): Seq[Logged] = {
    val root = Fixtures.path(table)
    val commits = Files
      .list(Paths.get(root, "_delta_log"))
      .iterator()
      .asScala
      .filter(_.getFileName.toString.matches("\\d{20}\\.json"))
      .toSeq
      .sortBy(_.getFileName.toString)
    val all = for {
      commit <- commits
      version = commit.getFileName.toString.take(20).toLong
      line <- Files.readAllLines(commit).asScala if line.trim.nonEmpty
      kind <- Seq("add", "remove")
      action = mapper.readTree(line).get(kind) if action != null
      dv = action.get("deletionVector") if dv != null && !dv.isNull
    } yield Logged(root, version, action.get("path").asText, descriptor(dv))
    all.groupBy(_.dv).values.map(_.minBy(_.version)).toSeq.sortBy(l => (l.version, l.dataFile))
  }

  private def descriptor(dv: JsonNode): DvDescriptor = DvDescriptor(
    dv.get("storageType").asText,
    dv.get("pathOrInlineDv").asText,
    Option(dv.get("offset")).filterNot(_.isNull).map(_.asInt),
    dv.get("sizeInBytes").asInt,
    dv.get("cardinality").asLong
  )

  /** The row indexes delta-spark reads for the descriptor. */
  private def deltaSpark(root: String, dv: DvDescriptor): Seq[Long] = {
    val d = DeletionVectorDescriptor(
      dv.storageType,
      dv.pathOrInlineDv,
      dv.offset,
      dv.sizeInBytes,
      dv.cardinality
    )
    StoredBitmap.create(d, new Path(root)).load(new HadoopFileSystemDVStore(conf)).values.toSeq
  }

  private def loadDv(l: Logged): RowIndexSet =
    DeletionVectorStore.load(l.root, l.version, l.dataFile, l.dv, conf)

  /** The DV the way both readers can find it: the special-char fixture's absolute path is a
    * template its Delta test fills in; the small fixture's file carries the prefix delta-spark adds
    * to DV file names in its own test runs (`test%dv%prefix-`), which the log does not record, so a
    * copy under the name the protocol derives stands in a temp table root.
    */
  private def readable(l: Logged): Logged =
    if (l.dv.pathOrInlineDv.contains("{{FOLDER_WITH_SPECIAL_CHAR}}")) {
      val folder = Paths.get(l.root, "folder&with%special char").toUri.getRawPath
      val filled = l.dv.pathOrInlineDv.replace("{{FOLDER_WITH_SPECIAL_CHAR}}/", folder)
      l.copy(dv = l.dv.copy(pathOrInlineDv = filled))
    } else {
      val file = DvPaths.absolutePath(l.root, l.dv.storageType, l.dv.pathOrInlineDv)
      val local = file.map(f => Paths.get(f.toUri.getPath)).filterNot(Files.exists(_))
      local.map(f => f.resolveSibling("test%dv%prefix-" + f.getFileName)) match {
        case Some(prefixed) if Files.exists(prefixed) =>
          val root = tempDir()
          val at = root.resolve(Paths.get(l.root).relativize(local.get))
          Files.createDirectories(at.getParent)
          Files.copy(prefixed, at)
          l.copy(root = root.toString)
        case _ => l
      }
    }

  dvTables.foreach { table =>
    test(s"$table: every DV of the log reads as delta-spark reads it") {
      assume(Fixtures.available, Fixtures.skipMessage)
      val dvs = logged(table)
      assert(dvs.nonEmpty, s"$table has no deletion vector in its commits")
      dvs.map(readable).foreach { l =>
        if (table == dvFileMissing) {
          val file = DvPaths.absolutePath(l.root, l.dv.storageType, l.dv.pathOrInlineDv).get
          assert(!Files.exists(Paths.get(file.toUri.getPath)))
          val e = intercept[TxlogException](loadDv(l))
          assertError(e, ErrorClasses.DeletionVectorNotFound, l, "deletion_vector_")
        } else {
          val ours = loadDv(l)
          val theirs = deltaSpark(l.root, l.dv)
          assert(ours.iterator.toSeq === theirs, s"$l")
          assert(ours.cardinality === l.dv.cardinality, s"$l")
          assert(theirs.forall(ours.contains), s"$l")
          val others = theirs.flatMap(i => Seq(i - 1, i + 1)).filterNot(theirs.toSet) ++
            Seq(-1L, Long.MaxValue, 1L << 32)
          assert(!others.exists(ours.contains), s"$l")
        }
      }
      info(
        s"${dvs.size} deletion vectors, cardinalities summing to ${dvs.map(_.dv.cardinality).sum}"
      )
    }
  }

  private def assertError(e: TxlogException, errorClass: String, l: Logged, mention: String) = {
    assert(e.errorClass === errorClass, e.getMessage)
    assert(e.file === Some(l.dataFile), e.getMessage)
    assert(e.version === Some(l.version), e.getMessage)
    assert(e.getMessage.contains(s"data file ${l.dataFile} of ${l.root} (version ${l.version})"))
    assert(e.getMessage.toLowerCase.contains(mention.toLowerCase), e.getMessage)
  }

  // ---- Inline DVs: no fixture has one; delta-spark serializes and encodes them. --------------

  /** An inline descriptor of the row indexes, as delta-spark writes it into a log. */
  private def inline(rows: Seq[Long]): DvDescriptor = {
    val bitmap = RoaringBitmapArray(rows: _*)
    val bytes = bitmap.serializeAsByteArray(RoaringBitmapArrayFormat.Portable)
    val d = DeletionVectorDescriptor.inlineInLog(bytes, bitmap.cardinality)
    assert(d.storageType === "i" && d.offset.isEmpty)
    DvDescriptor(d.storageType, d.pathOrInlineDv, None, d.sizeInBytes, d.cardinality)
  }

  private val inlineSets: Seq[(String, Seq[Long])] = Seq(
    "empty" -> Nil,
    "one row" -> Seq(0L),
    "two rows (no Z85 padding)" -> Seq(3L, 9L),
    "the spec's six rows" -> Seq(3L, 4L, 7L, 11L, 18L, 29L),
    "a bitmap container" -> (0L until 70000L by 3L),
    "a run" -> (1000L until 200000L),
    "several buckets, with gaps" -> Seq(5L, (1L << 32) + 1, (7L << 32) + 70000, (40L << 32) | 3)
  )

  inlineSets.foreach { case (name, rows) =>
    test(s"inline DV, $name: the same row indexes as delta-spark") {
      val dv = inline(rows)
      val l = Logged("/no/such/table", 3L, "part-0.parquet", dv)
      val ours = loadDv(l)
      assert(ours.iterator.toSeq === rows)
      assert(ours.iterator.toSeq === deltaSpark(l.root, dv))
      assert(ours.cardinality === rows.size.toLong)
      assert(rows.forall(ours.contains))
    }
  }

  test("inline DV: Z85 decoding trims delta-spark's padding for every length") {
    val random = new scala.util.Random(85)
    (0 to 41).foreach { n =>
      val bytes = Array.fill(n)(random.nextInt(256).toByte)
      val text = Base85Codec.encodeBytes(bytes)
      assert(Z85.decode(text, n).toSeq === bytes.toSeq, s"$n bytes")
      assert(Z85.decode(text, n).toSeq === Base85Codec.decodeBytes(text, n).toSeq, s"$n bytes")
    }
  }

  test("the spec's inline example: written in another format, both readers refuse it") {
    // JSON Example 3 of "Deletion Vector Descriptor Schema" starts with 1681511376 (the magic of
    // delta-spark's native format) big-endian, not the little-endian 1681511377 of "Deletion
    // Vector Format"; delta-spark refuses it too.
    val example = "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L"
    val l = Logged("/t", 1L, "part-0.parquet", DvDescriptor("i", example, None, 40, 6L))
    val e = intercept[TxlogException](loadDv(l))
    assertError(e, ErrorClasses.DeletionVectorCorrupt, l, "magic number")
    assert(e.getMessage.contains("1681511376, of Delta's native bitmap format, written big-endian"))
    assert(e.getMessage.contains(DeletionVectorStore.InLogInline))
    val theirs = intercept[IOException](deltaSpark(l.root, l.dv))
    assert(theirs.getMessage.contains("magic number"))
  }

  // ---- Corruption, on a copy of kernel/basic-dv-no-checkpoint (one DV file). ---------------

  /** A writable copy of the table, its DV as its log records it, and the DV's file; without the DV
    * file's Hadoop checksum file (`.NAME.crc`) unless `keepCrc`, so that the local file system does
    * not find the changes before txlog's own checks do.
    */
  private def copied(keepCrc: Boolean = false): (Logged, JPath) = {
    val root = Fixtures.copy("kernel/basic-dv-no-checkpoint", tempDir())
    FileUtils.listFiles(root.toFile, null, true).asScala.foreach(_.setWritable(true))
    val l = logged("kernel/basic-dv-no-checkpoint").head.copy(root = root.toString)
    val file = DvPaths.absolutePath(l.root, l.dv.storageType, l.dv.pathOrInlineDv).get
    val local = Paths.get(file.toUri.getPath)
    val crc = local.resolveSibling(s".${local.getFileName}.crc")
    assert(Files.exists(crc))
    if (!keepCrc) Files.delete(crc)
    (l, local)
  }

  private def rewrite(file: JPath)(change: Array[Byte] => Array[Byte]): Unit =
    Files.write(file, change(Files.readAllBytes(file)))

  private def corrupt(l: Logged, mention: String): TxlogException = {
    val e = intercept[TxlogException](loadDv(l))
    assertError(e, ErrorClasses.DeletionVectorCorrupt, l, mention)
    e
  }

  test("corrupt: a flipped byte of the DV's data fails its checksum") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val (l, file) = copied()
    assert(loadDv(l).cardinality === l.dv.cardinality)
    rewrite(file) { b =>
      b(l.dv.offset.get + 4 + 13) = (b(l.dv.offset.get + 4 + 13) ^ 0x10).toByte; b
    }
    val e = corrupt(l, "checksum mismatch: the CRC-32")
    assert(e.getMessage.contains(file.getFileName.toString))
  }

  test("corrupt: a flipped byte the file system's own checksum (.crc) finds first") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val (l, file) = copied(keepCrc = true)
    assert(loadDv(l).cardinality === l.dv.cardinality)
    rewrite(file) { b => b(b.length - 1) = (b(b.length - 1) ^ 1).toByte; b }
    val e = corrupt(l, "checksum mismatch: the file system's checksum")
    assert(e.getMessage.contains(file.getFileName.toString))
  }

  test("corrupt: a format version byte other than 1") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val (l, file) = copied()
    rewrite(file) { b => b(0) = 2; b }
    corrupt(l, "format version")
  }

  test("corrupt: a DV size that disagrees with sizeInBytes") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val (l, _) = copied()
    corrupt(l.copy(dv = l.dv.copy(sizeInBytes = l.dv.sizeInBytes + 2)), "sizeInBytes")
    corrupt(l.copy(dv = l.dv.copy(offset = Some(2))), "sizeInBytes")
  }

  test("corrupt: a cardinality that disagrees with the bitmap") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val (l, _) = copied()
    corrupt(l.copy(dv = l.dv.copy(cardinality = l.dv.cardinality + 1)), "cardinality")
  }

  test("corrupt: a file that ends inside the DV") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val (l, file) = copied()
    rewrite(file)(_.dropRight(3))
    corrupt(l, "ends before")
    rewrite(file)(_.take(1))
    corrupt(l, "ends before")
    rewrite(file)(_ => Array.empty)
    corrupt(l, "empty")
  }

  test("corrupt: a DV with a wrong magic number under a correct checksum") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val (l, file) = copied()
    val offset = l.dv.offset.get
    rewrite(file) { b =>
      val data = b.slice(offset + 4, offset + 4 + l.dv.sizeInBytes)
      data(0) = (data(0) + 1).toByte
      val crc = new CRC32
      crc.update(data)
      ByteBuffer.wrap(b).putInt(offset + 4 + data.length, crc.getValue.toInt)
      System.arraycopy(data, 0, b, offset + 4, data.length)
      b
    }
    corrupt(l, "magic number")
  }

  test("not found: a DV file that does not exist") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val (l, file) = copied()
    Files.delete(file)
    val e = intercept[TxlogException](loadDv(l))
    assertError(e, ErrorClasses.DeletionVectorNotFound, l, file.getFileName.toString)
    assert(e.getCause.isInstanceOf[java.io.FileNotFoundException])
  }

  test("a storage failure reading the DV file is no corruption: it propagates as it is") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val (l, file) = copied()
    val faulty = new Configuration()
    FaultInjectingFileSystem.conf.foreach { case (k, v) =>
      faulty.set(k.stripPrefix("spark.hadoop."), v)
    }
    FaultInjectingFileSystem.reset()
    try {
      FaultInjectingFileSystem.fail(file.getFileName.toString, Fault.Io)
      val root = s"${FaultInjectingFileSystem.Scheme}://${l.root}"
      val e =
        intercept[IOException](DeletionVectorStore.load(root, l.version, l.dataFile, l.dv, faulty))
      assert(e.getMessage.contains("injected open failure"))
    } finally FaultInjectingFileSystem.reset()
  }

  test("corrupt: descriptors the log gets wrong") {
    val l = Logged("/t", 4L, "a/part-1.parquet", inline(Seq(1L, 2L)))
    corrupt(l.copy(dv = l.dv.copy(storageType = "x")), "'x'")
    val badChar = l.dv.pathOrInlineDv.updated(3, '"')
    val e = corrupt(l.copy(dv = l.dv.copy(pathOrInlineDv = badChar)), "not a Z85 character")
    assert(e.getMessage.contains(DeletionVectorStore.InLogInline))
    corrupt(l.copy(dv = l.dv.copy(pathOrInlineDv = l.dv.pathOrInlineDv.drop(1))), "Z85")
    corrupt(l.copy(dv = l.dv.copy(sizeInBytes = l.dv.sizeInBytes - 8)), "Z85")
    corrupt(l.copy(dv = l.dv.copy(sizeInBytes = l.dv.sizeInBytes - 2)), "malformed")
    corrupt(
      l.copy(dv = DvDescriptor("u", "ab~-aqEH.-t@S}K{vb[*k^", Some(1), 36, 2L)),
      "names no file"
    )
    corrupt(l.copy(dv = DvDescriptor("u", "short", Some(1), 36, 2L)), "names no file")
    corrupt(l.copy(dv = DvDescriptor("p", "relative/dv.bin", Some(1), 36, 2L)), "not absolute")
    corrupt(l.copy(dv = DvDescriptor("p", "/t/dv.bin", Some(0), 36, 2L)), "offset")
  }

  test("DvDescriptor.fromRow reads the spec's field names, offset null-safe") {
    import org.apache.spark.sql.Row
    import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema
    import txlog.protocol.ActionSchemas
    def row(values: Any*) = new GenericRowWithSchema(values.toArray, ActionSchemas.deletionVector)
    assert(
      DvDescriptor.fromRow(row("u", "ab^-aqEH.-t@S}K{vb[*k^", 4, 40, 6L, null)) ===
        DvDescriptor("u", "ab^-aqEH.-t@S}K{vb[*k^", Some(4), 40, 6L)
    )
    assert(
      DvDescriptor.fromRow(row("i", "wi5b=", null, 4, 1L, null)) ===
        DvDescriptor("i", "wi5b=", None, 4, 1L)
    )
    assert(DvDescriptor.fromRow(Row("p", "/x", null, 4, 1L)).offset === None)
    intercept[IllegalArgumentException](DvDescriptor.fromRow(row("u", "x", 1, null, 1L, null)))
  }
}
