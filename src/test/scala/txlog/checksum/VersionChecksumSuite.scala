package txlog.checksum

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.delta.RefVersions
import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.delta.stats.{
  DeletedRecordCountsHistogramUtils => RefDeletedHistogram,
  FileSizeHistogramUtils => RefFileSizeHistogramUtils
}

import txlog.{ChecksumMismatch, DeltaLog, Fixtures, SparkSuite, TxlogException}
import txlog.protocol.FileNames

/** Version checksum files (`n.crc`): delta-spark's fixture files validate clean, and files txlog
  * writes are accepted by delta-spark and by txlog and never overwrite another.
  */
class VersionChecksumSuite extends ChecksumTables {
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

  test("the default histogram bins are delta-spark's 95 default bins") {
    assert(RefFileSizeHistogramUtils.DEFAULT_BINS.size === 95)
    assert(FileSizeHistogram.DefaultBoundaries === RefFileSizeHistogramUtils.DEFAULT_BINS)
  }

  // (b) txlog writes checksums delta-spark accepts.

  private val accepted = Seq(
    "golden/commit-info-containing-arbitrary-operationParams-types", // CDF, writer features
    "golden/deltalog-getChanges", // txn actions
    "kernel/spark-variant-stable-feature-checkpoint", // reader features
    "spark/table-with-dv-small"
  ) // deletion vectors

  // `make test`: the table with deletion vectors and half of the others, which half rotating by
  // day (txlog.testing.Breadth); `make test-breadth`: all four.
  txlog.testing.Breadth.share(accepted, 2, suiteName)(_ == accepted.last).foreach { name =>
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
        val s = RefVersions.snapshotAt(ref, v)
        assert(s.checksumOpt.isEmpty)
        (
          s.sizeInBytes,
          s.numOfFiles,
          s.metadata,
          s.protocol,
          s.setTransactions.toSet,
          s.domainMetadata.toSet,
          s.numDeletedRecordsOpt,
          s.numDeletionVectorsOpt,
          s.allFiles.collect().map(_.size).toSeq
        )
      }
      (0L to latest).foreach { v =>
        val written = log.writeChecksum(v)
        assert(written.endsWith(f"$v%020d.crc")) // the spec's name
        assert(Files.exists(crcPath(table, v)))
      }
      RefLog.clearCache()
      val after = RefLog.forTable(spark, path)
      (0L to latest).foreach { v =>
        val s = RefVersions.snapshotAt(after, v)
        val crc = s.checksumOpt.getOrElse(fail(s"delta-spark did not read v$v's checksum"))
        val (size, n, md, p, txns, domains, deleted, dvs, sizes) = before(v.toInt)
        assert(crc.tableSizeBytes === size)
        assert(crc.numFiles === n)
        assert(crc.numMetadata === 1L && crc.numProtocol === 1L)
        assert(crc.metadata === md)
        assert(crc.protocol === p)
        assert(crc.setTransactions.getOrElse(Nil).toSet === txns)
        assert(crc.domainMetadata.getOrElse(Nil).toSet === domains)
        // The histogram delta-spark's own class builds over its default bins.
        val hist = RefFileSizeHistogramUtils.emptyHistogram
        sizes.foreach(hist.insert)
        val got = crc.fileSizeHistogram.getOrElse(fail(s"v$v: no file size histogram"))
        assert(got.sortedBinBoundaries === hist.sortedBinBoundaries)
        assert(got.fileCounts.toSeq === hist.fileCounts.toSeq)
        assert(got.totalBytes.toSeq === hist.totalBytes.toSeq)
        assert(got.fileCounts.sum === n && got.totalBytes.sum === size)
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
    // Each file's deleted rows as delta-spark reads them (0 without a deletion vector).
    RefLog.clearCache()
    val refFiles = RefLog.forTable(spark, table.toString).update().allFiles.collect().toSeq
    val dvFiles = refFiles.flatMap(a => Option(a.deletionVector)).map(_.cardinality)
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
    // The histogram delta-spark's own class builds from those counts.
    val expected = RefDeletedHistogram.emptyHistogram
    refFiles.foreach(a => expected.insert(Option(a.deletionVector).fold(0L)(_.cardinality)))
    assert(json.get("numFiles").asLong() === refFiles.size.toLong)
    assert(bins === expected.deletedRecordCounts.toSeq)
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
    val s = RefVersions.snapshotAt(RefLog.forTable(spark, table.toString), 3L)
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
    val s = RefVersions.snapshotAt(RefLog.forTable(spark, table.toString), 4L)
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

  test(
    "writing never overwrites a checksum file: one that agrees is kept, one that differs refused"
  ) {
    // delta-spark writes a checksum with every commit: writing the latest one again keeps it
    val spark4 = tempDir("crc-delta").resolve("t")
    spark.sql(s"CREATE TABLE delta.`$spark4` (id INT) USING delta")
    spark.sql(s"INSERT INTO delta.`$spark4` VALUES (1), (2)")
    val theirs = Files.readAllBytes(crcPath(spark4, 1))
    val kept = DeltaLog.forTable(spark, spark4.toString).writeChecksum()
    assert(kept.endsWith("00000000000000000001.crc"))
    assert(Files.readAllBytes(crcPath(spark4, 1)) === theirs)

    val table = copy("golden/commit-info-containing-arbitrary-operationParams-types")
    val log = DeltaLog.forTable(spark, table.toString)
    deleteChecksums(table)
    log.writeChecksum()
    val ours = Files.readAllBytes(crcPath(table, 2))
    assert(log.writeChecksum().endsWith("00000000000000000002.crc"), "idempotent")
    assert(Files.readAllBytes(crcPath(table, 2)) === ours)
    // a file that disagrees with the log is left as it is, and refused
    val text = new String(ours, "UTF-8")
    val tampered = text.replaceFirst("\"numFiles\":(\\d+)", "\"numFiles\":999")
    assert(tampered != text)
    Files.write(crcPath(table, 2), tampered.getBytes("UTF-8"))
    val e = intercept[TxlogException](log.writeChecksum())
    assert(e.errorClass === "LOG_FILE_EXISTS")
    assert(e.getMessage.contains("00000000000000000002.crc") && e.getMessage.contains("numFiles"))
    assert(new String(Files.readAllBytes(crcPath(table, 2)), "UTF-8") === tampered)
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
