package txlog.checksum

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.delta.{DeltaLog => RefLog}

import txlog.{ChecksumMismatch, DeltaLog, Fixtures, SparkSuite, TxlogException}
import txlog.log.FileNames

/** Version checksum files (`n.crc`): delta-spark's fixture files validate clean, files txlog writes
  * are accepted by delta-spark and by txlog, and bad files are reported precisely.
  */
class VersionChecksumSuite extends SparkSuite {
  private val mapper = new ObjectMapper()
  private val Crc = """^(\d{20})\.crc$""".r

  /** The versions with a `.crc` file in a table's `_delta_log`. */
  private def crcVersions(table: Path): Seq[Long] = {
    val s = Files.list(table.resolve("_delta_log"))
    try
      s.iterator()
        .asScala
        .map(_.getFileName.toString)
        .collect { case Crc(v) => v.toLong }
        .toSeq
        .sorted
    finally s.close()
  }

  private def crcPath(table: Path, v: Long): Path =
    table.resolve("_delta_log").resolve(FileNames.checksumName(v))

  /** Deletes the `.crc` files of a table copy (and Hadoop's side files of them). */
  private def deleteChecksums(table: Path): Seq[Long] = {
    val versions = crcVersions(table)
    versions.foreach { v =>
      val p = crcPath(table, v)
      Files.delete(p)
      Files.deleteIfExists(p.resolveSibling(s".${p.getFileName}.crc"))
    }
    versions
  }

  private def copy(name: String): Path = {
    assume(Fixtures.available, Fixtures.skipMessage)
    Fixtures.copy(name, tempDir("crc"))
  }

  // (a) every delta-spark .crc among the fixtures validates clean.

  private var validatedClean = 0
  private val withChecksums: Seq[String] =
    Fixtures.tables.filter(t => crcVersions(Fixtures.root.resolve(t)).nonEmpty)

  if (!Fixtures.available) test("fixture checksums validate")(cancel(Fixtures.skipMessage))

  test("there are fixture tables with checksum files") {
    assume(Fixtures.available, Fixtures.skipMessage)
    assert(withChecksums.nonEmpty)
  }

  withChecksums.foreach { name =>
    test(s"delta-spark's checksum files validate clean: $name") {
      val log = DeltaLog.forTable(spark, Fixtures.path(name))
      val versions = crcVersions(Fixtures.root.resolve(name))
      val results = versions.map(v => log.validateChecksum(v))
      val bad = results.flatMap(_.mismatches)
      assert(bad.isEmpty, s"mismatches: ${bad.mkString("\n")}")
      assert(results.map(_.version) === versions)
      validatedClean += versions.size
      info(s"${versions.size} checksum file(s) valid: ${versions.mkString(", ")}")
    }
  }

  test("the default histogram bins are the ones delta-spark writes") {
    val withHistogram = withChecksums
      .flatMap { t =>
        crcVersions(Fixtures.root.resolve(t)).map(v => crcPath(Fixtures.root.resolve(t), v))
      }
      .map(p => mapper.readTree(Files.readString(p)))
      .flatMap(j => Option(j.get("fileSizeHistogram")).orElse(Option(j.get("histogramOpt"))))
    assume(withHistogram.nonEmpty, "no fixture checksum has a histogram")
    withHistogram.foreach { h =>
      val bins = h.get("sortedBinBoundaries").elements().asScala.map(_.asLong()).toSeq
      assert(bins === FileSizeHistogram.DefaultBoundaries)
    }
  }

  // (b) txlog writes checksums delta-spark accepts.

  private val accepted = Seq(
    "golden/commit-info-containing-arbitrary-operationParams-types", // CDF, writer features
    "golden/deltalog-getChanges", // txn actions
    "kernel/spark-variant-stable-feature-checkpoint", // reader features
    "spark/table-with-dv-small"
  ) // deletion vectors

  accepted.foreach { name =>
    test(s"delta-spark accepts the checksums txlog writes: $name") {
      val table = copy(name)
      deleteChecksums(table)
      val path = table.toString
      val log = DeltaLog.forTable(spark, path)
      val latest = log.snapshot().version
      // delta-spark's own view of each version, taken while no checksum exists.
      RefLog.clearCache()
      val ref = RefLog.forTable(spark, path)
      val before = (0L to latest).map { v =>
        val s = ref.getSnapshotAt(v, None, None, false)
        assert(s.checksumOpt.isEmpty)
        (
          s.sizeInBytes,
          s.numOfFiles,
          s.metadata,
          s.protocol,
          s.setTransactions.toSet,
          s.domainMetadata.toSet,
          s.numDeletedRecordsOpt,
          s.numDeletionVectorsOpt
        )
      }
      (0L to latest).foreach { v =>
        val written = log.writeChecksum(v)
        assert(written.endsWith(FileNames.checksumName(v)))
        assert(Files.exists(crcPath(table, v)))
      }
      RefLog.clearCache()
      val after = RefLog.forTable(spark, path)
      (0L to latest).foreach { v =>
        val s = after.getSnapshotAt(v, None, None, false)
        val crc = s.checksumOpt.getOrElse(fail(s"delta-spark did not read v$v's checksum"))
        val (size, n, md, p, txns, domains, deleted, dvs) = before(v.toInt)
        assert(crc.tableSizeBytes === size)
        assert(crc.numFiles === n)
        assert(crc.numMetadata === 1L && crc.numProtocol === 1L)
        assert(crc.metadata === md)
        assert(crc.protocol === p)
        assert(crc.setTransactions.getOrElse(Nil).toSet === txns)
        assert(crc.domainMetadata.getOrElse(Nil).toSet === domains)
        assert(crc.fileSizeHistogram.map(_.fileCounts.sum) === Some(n))
        assert(crc.fileSizeHistogram.map(_.totalBytes.sum) === Some(size))
        if (p.readerFeatures.exists(_.contains("deletionVectors"))) {
          assert(crc.numDeletedRecordsOpt === deleted)
          assert(crc.numDeletionVectorsOpt === dvs)
          assert(crc.deletedRecordCountsHistogramOpt.map(_.deletedRecordCounts.sum) === Some(n))
        }
        assert(s.validateChecksum(Map.empty), s"delta-spark finds v$v's checksum invalid")
        val ours = log.validateChecksum(v)
        assert(ours.mismatches === Nil)
        assert(ours.isValid)
      }
      val leftovers = Files
        .list(table.resolve("_delta_log"))
        .iterator()
        .asScala
        .map(_.getFileName.toString)
        .filter(_.startsWith("."))
        .filter(_.contains(".crc"))
        .toSeq
      assert(leftovers.filterNot(_.endsWith(".json.crc")) === Nil)
      info(s"${latest + 1} checksum file(s) written and accepted")
    }
  }

  test("written files have the shape of delta-spark's") {
    val name = "golden/commit-info-containing-arbitrary-operationParams-types"
    val table = copy(name)
    val versions = deleteChecksums(table)
    val log = DeltaLog.forTable(spark, table.toString)
    versions.foreach { v =>
      log.writeChecksum(v)
      val theirs = mapper.readTree(Files.readString(crcPath(Fixtures.root.resolve(name), v)))
      val ours = mapper.readTree(Files.readString(crcPath(table, v)))
      val extra = ours.fieldNames().asScala.toSet -- theirs.fieldNames().asScala.toSet
      assert(extra === Set("fileSizeHistogram"))
      Seq(
        "tableSizeBytes",
        "numFiles",
        "numMetadata",
        "numProtocol",
        "setTransactions",
        "domainMetadata",
        "metadata"
      ).foreach(f => assert(ours.get(f) === theirs.get(f), f))
      def features(j: com.fasterxml.jackson.databind.JsonNode) = j
        .get("protocol")
        .properties()
        .asScala
        .map(e =>
          e.getKey -> (if (e.getValue.isArray) {
                         e.getValue.elements().asScala.map(_.asText()).toSeq.sorted.mkString(",")
                       } else e.getValue.asText())
        )
        .toMap
      assert(features(ours) === features(theirs))
    }
  }

  test("the DV fields count deletion vectors and deleted rows per file") {
    val table = copy("spark/table-with-dv-small")
    deleteChecksums(table)
    val log = DeltaLog.forTable(spark, table.toString)
    log.writeChecksum()
    val v = log.snapshot().version
    val json = mapper.readTree(Files.readString(crcPath(table, v)))
    val dvFiles = log
      .snapshot()
      .allFiles
      .where("deletionVector is not null")
      .selectExpr("deletionVector.cardinality")
      .collect()
      .map(_.getLong(0))
      .toSeq
    assert(dvFiles.nonEmpty)
    assert(json.get("numDeletionVectorsOpt").asLong() === dvFiles.size.toLong)
    assert(json.get("numDeletedRecordsOpt").asLong() === dvFiles.sum)
    val bins = json
      .get("deletedRecordCountsHistogramOpt")
      .get("deletedRecordCounts")
      .elements()
      .asScala
      .map(_.asLong())
      .toSeq
    assert(bins.size === 10)
    info(s"written fields: ${json.fieldNames().asScala.mkString(", ")}")
    def bin(c: Long): Int = DeletedRecordCounts.LowerBounds.lastIndexWhere(_ <= c)
    val expected = Array.fill(10)(0L)
    val numFiles = json.get("numFiles").asLong()
    expected(0) = numFiles - dvFiles.size + dvFiles.count(_ == 0)
    dvFiles.filter(_ > 0).foreach(c => expected(bin(c)) += 1)
    assert(bins === expected.toSeq)
  }

  /** The commit-info fixture with in-commit timestamps enabled by an added commit 3. */
  private def withInCommitTimestamps(ict: Long): Path = {
    val table = copy("golden/commit-info-containing-arbitrary-operationParams-types")
    val md = mapper
      .readTree(Files.readString(crcPath(table, 2)))
      .get("metadata")
      .asInstanceOf[ObjectNode]
    md.get("configuration")
      .asInstanceOf[ObjectNode]
      .put("delta.enableInCommitTimestamps", "true")
      .put("delta.inCommitTimestampEnablementVersion", "3")
      .put("delta.inCommitTimestampEnablementTimestamp", ict.toString)
    val lines = Seq(
      s"""{"commitInfo":{"inCommitTimestamp":$ict,"timestamp":$ict,""" +
        """"operation":"SET TBLPROPERTIES","operationParameters":{}}}""",
      """{"protocol":{"minReaderVersion":1,"minWriterVersion":7,"writerFeatures":""" +
        """["changeDataFeed","appendOnly","invariants","inCommitTimestamp"]}}""",
      s"""{"metaData":${mapper.writeValueAsString(md)}}"""
    )
    Files.writeString(
      table.resolve("_delta_log").resolve(FileNames.commitName(3)),
      lines.mkString("", "\n", "\n")
    )
    deleteChecksums(table)
    table
  }

  test("with in-commit timestamps the checksum records and validates the version's ICT") {
    val ict = 1740185400123L
    val table = withInCommitTimestamps(ict)
    val log = DeltaLog.forTable(spark, table.toString)
    log.writeChecksum(3L)
    log.writeChecksum(2L)
    val json = mapper.readTree(Files.readString(crcPath(table, 3)))
    assert(json.get("inCommitTimestampOpt").asLong() === ict)
    assert(!mapper.readTree(Files.readString(crcPath(table, 2))).has("inCommitTimestampOpt"))
    assert(log.validateChecksum(3L).isValid)
    RefLog.clearCache()
    val s = RefLog.forTable(spark, table.toString).getSnapshotAt(3L, None, None, false)
    assert(s.checksumOpt.flatMap(_.inCommitTimestampOpt) === Some(ict))
    assert(s.validateChecksum(Map.empty))
    tamper(table, 3)(_.put("inCommitTimestampOpt", ict + 1))
    assert(
      log.validateChecksum(3L).mismatches ===
        Seq(ChecksumMismatch(3, "inCommitTimestampOpt", (ict + 1).toString, ict.toString))
    )
  }

  test("domain metadata: live domains are written, removed ones are not, delta-spark agrees") {
    val table = copy("golden/commit-info-containing-arbitrary-operationParams-types")
    deleteChecksums(table)
    def commit(v: Long, lines: String*): Unit =
      Files.writeString(
        table.resolve("_delta_log").resolve(FileNames.commitName(v)),
        lines.mkString("", "\n", "\n")
      )
    def domain(name: String, conf: String, removed: Boolean): String =
      s"""{"domainMetadata":{"domain":"$name",""" +
        s""""configuration":${mapper.writeValueAsString(conf)},"removed":$removed}}"""
    commit(
      3,
      """{"commitInfo":{"timestamp":1740185400000,"operation":"MANUAL UPDATE"}}""",
      """{"protocol":{"minReaderVersion":1,"minWriterVersion":7,"writerFeatures":""" +
        """["changeDataFeed","appendOnly","invariants","domainMetadata"]}}""",
      domain("app.a", """{"k":1}""", removed = false),
      domain("app.b", """{"k":2}""", removed = false),
      """{"txn":{"appId":"stream-1","version":7,"lastUpdated":1740185400000}}"""
    )
    commit(
      4,
      """{"commitInfo":{"timestamp":1740185401000,"operation":"MANUAL UPDATE"}}""",
      domain("app.b", """{"k":2}""", removed = true)
    )
    val log = DeltaLog.forTable(spark, table.toString)
    log.writeChecksum(4L)
    val json = mapper.readTree(Files.readString(crcPath(table, 4)))
    assert(
      mapper.writeValueAsString(json.get("domainMetadata")) ===
        """[{"domain":"app.a","configuration":"{\"k\":1}","removed":false}]"""
    )
    assert(
      mapper.writeValueAsString(json.get("setTransactions")) ===
        """[{"appId":"stream-1","version":7,"lastUpdated":1740185400000}]"""
    )
    assert(log.validateChecksum(4L).isValid)
    RefLog.clearCache()
    val s = RefLog.forTable(spark, table.toString).getSnapshotAt(4L, None, None, false)
    assert(s.checksumOpt.flatMap(_.domainMetadata).map(_.map(_.domain)) === Some(Seq("app.a")))
    assert(s.validateChecksum(Map.empty))
    tamper(table, 4)(
      _.get("domainMetadata")
        .get(0)
        .asInstanceOf[ObjectNode]
        .put("configuration", "{}")
    )
    assert(
      log.validateChecksum(4L).mismatches === Seq(
        ChecksumMismatch(4, "domainMetadata", """{"app.a":"{}"}""", """{"app.a":"{\"k\":1}"}""")
      )
    )
  }

  test("writing is refused on tables with writer features txlog does not implement") {
    val table = copy("golden/collations-table")
    deleteChecksums(table)
    val e = intercept[TxlogException](DeltaLog.forTable(spark, table.toString).writeChecksum())
    assert(e.errorClass === "UNSUPPORTED_WRITER_FEATURES")
    assert(crcVersions(table).isEmpty)
  }

  // (c) never overwrite.

  test("writing refuses to overwrite a checksum file, whoever wrote it") {
    val table = copy("golden/commit-info-containing-arbitrary-operationParams-types")
    val log = DeltaLog.forTable(spark, table.toString)
    val theirs = Files.readAllBytes(crcPath(table, 1))
    val e1 = intercept[TxlogException](log.writeChecksum(1L))
    assert(e1.errorClass === "LOG_FILE_EXISTS")
    assert(e1.getMessage.contains(FileNames.checksumName(1)))
    assert(Files.readAllBytes(crcPath(table, 1)) === theirs)

    deleteChecksums(table)
    log.writeChecksum()
    val ours = Files.readAllBytes(crcPath(table, 2))
    val e2 = intercept[TxlogException](log.writeChecksum())
    assert(e2.errorClass === "LOG_FILE_EXISTS")
    assert(Files.readAllBytes(crcPath(table, 2)) === ours)
  }

  // (d) tampering is reported field by field.

  private def tamper(table: Path, v: Long)(change: ObjectNode => Unit): Unit = {
    val p = crcPath(table, v)
    val json = mapper.readTree(Files.readString(p)).asInstanceOf[ObjectNode]
    change(json)
    Files.writeString(p, mapper.writeValueAsString(json))
    Files.deleteIfExists(p.resolveSibling(s".${p.getFileName}.crc"))
  }

  test("a tampered delta-spark checksum reports exactly the changed fields") {
    val table = copy("golden/commit-info-containing-arbitrary-operationParams-types")
    tamper(table, 2) { j =>
      j.put("numFiles", 3L)
      j.put("tableSizeBytes", 1000L)
      j.get("metadata")
        .asInstanceOf[ObjectNode]
        .putObject("configuration")
        .put("delta.enableChangeDataFeed", "false")
    }
    val log = DeltaLog.forTable(spark, table.toString)
    val result = log.validateChecksum(2L)
    assert(!result.isValid)
    assert(
      result.mismatches.toSet === Set(
        ChecksumMismatch(2, "numFiles", "3", "2"),
        ChecksumMismatch(2, "tableSizeBytes", "1000", "904"),
        ChecksumMismatch(
          2,
          "metadata.configuration",
          """{"delta.enableChangeDataFeed":"false"}""",
          """{"delta.enableChangeDataFeed":"true"}"""
        )
      )
    )
    assert(result.mismatches.size === 3)
    assert(log.validateChecksum(1L).isValid)
    val df = result.toDF(spark)
    assert(df.columns.toSeq === Seq("version", "field", "expected", "actual"))
    assert(df.count() === 3)
  }

  test("a tampered txlog checksum reports histogram, protocol and txn changes") {
    val table = copy("golden/deltalog-getChanges")
    deleteChecksums(table)
    val log = DeltaLog.forTable(spark, table.toString)
    log.writeChecksum()
    val v = log.snapshot().version
    val before = log.validateChecksum(v)
    assert(before.isValid)
    var counts = ""
    tamper(table, v) { j =>
      val h = j.get("fileSizeHistogram")
      val c = h.get("fileCounts").asInstanceOf[com.fasterxml.jackson.databind.node.ArrayNode]
      counts = mapper.writeValueAsString(c)
      c.set(0, c.get(0).asLong() + 5)
      j.get("protocol").asInstanceOf[ObjectNode].put("minWriterVersion", 3)
      j.putArray("setTransactions").addObject().put("appId", "nobody").put("version", 1L)
    }
    val fields = log.validateChecksum(v).mismatches.map(_.field)
    assert(
      fields.toSet ===
        Set("fileSizeHistogram.fileCounts", "protocol.minWriterVersion", "setTransactions")
    )
    val hist = log.validateChecksum(v).mismatches.find(_.field.startsWith("fileSize")).get
    assert(hist.actual === counts)
  }

  test("the histogram is recomputed over the bin boundaries in the file, under either name") {
    val table = copy("golden/commit-info-containing-arbitrary-operationParams-types")
    val log = DeltaLog.forTable(spark, table.toString)
    def histogram(name: String, counts: String, bytes: String): Unit = tamper(table, 2) { j =>
      Seq("fileSizeHistogram", "histogramOpt").foreach(j.remove)
      j.set[com.fasterxml.jackson.databind.JsonNode](
        name,
        mapper.readTree(
          s"""{"sortedBinBoundaries":[0,400,500],"fileCounts":$counts,"totalBytes":$bytes}"""
        )
      )
    }
    // v2 has two live files of 452 bytes each.
    histogram("histogramOpt", "[0,2,0]", "[0,904,0]")
    assert(log.validateChecksum(2L).isValid)
    histogram("fileSizeHistogram", "[0,2,0]", "[0,904,0]")
    assert(log.validateChecksum(2L).isValid)
    histogram("fileSizeHistogram", "[2,0,0]", "[0,904,0]")
    assert(
      log.validateChecksum(2L).mismatches === Seq(
        ChecksumMismatch(2, "fileSizeHistogram.fileCounts", "[2,0,0]", "[0,2,0]")
      )
    )
  }

  // (e) malformed and missing files.

  test("a malformed checksum file is MALFORMED_LOG_FILE naming the file and version") {
    val table = copy("golden/commit-info-containing-arbitrary-operationParams-types")
    val log = DeltaLog.forTable(spark, table.toString)
    Seq(
      "",
      "{not json",
      "{} {}",
      "[1, 2]",
      """{"tableSizeBytes": 904, "numFiles": "two", "numMetadata": 1, "numProtocol": 1}""",
      """{"numFiles": 2, "numMetadata": 1, "numProtocol": 1}""",
      """{"tableSizeBytes": 904, "numFiles": 2, "numMetadata": 1, "numProtocol": 1,
        | "fileSizeHistogram": {"sortedBinBoundaries": [0, 10], "fileCounts": [2],
        | "totalBytes": [904, 0]}}""".stripMargin
    ).foreach { text =>
      Files.writeString(crcPath(table, 1), text)
      val e = intercept[TxlogException](log.validateChecksum(1L))
      assert(e.errorClass === "MALFORMED_LOG_FILE", text)
      assert(e.getMessage.contains(FileNames.checksumName(1)), e.getMessage)
      assert(e.getMessage.contains("version 1"), e.getMessage)
    }
  }

  test("a version without a checksum file is CHECKSUM_NOT_FOUND") {
    val table = copy("golden/deltalog-getChanges")
    val log = DeltaLog.forTable(spark, table.toString)
    val e = intercept[TxlogException](log.validateChecksum(1L))
    assert(e.errorClass === "CHECKSUM_NOT_FOUND")
    assert(e.getMessage.contains(FileNames.checksumName(1)))
  }

  test("unknown fields are ignored and missing optional fields are not compared") {
    val table = copy("golden/commit-info-containing-arbitrary-operationParams-types")
    tamper(table, 0) { j =>
      j.put("someFutureField", "x")
      Seq("txnId", "setTransactions", "domainMetadata", "allFiles").foreach(j.remove)
    }
    assert(DeltaLog.forTable(spark, table.toString).validateChecksum(0L).isValid)
  }

  override def afterAll(): Unit = {
    try {
      if (Fixtures.available) {
        info(
          s"$validatedClean delta-spark checksum file(s) in ${withChecksums.size} fixture " +
            "table(s) validated clean"
        )
      }
    } finally super.afterAll()
  }
}
