package txlog.checksum

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.delta.{DeltaLog => RefLog}

import txlog.{ChecksumMismatch, DeltaLog, Fixtures, SparkSuite, TxlogException}

/** Version checksum validation reports tampered fields precisely, and bad or missing files are
  * typed errors.
  */
class ChecksumValidationSuite extends ChecksumTables {
  // (d) tampering is reported field by field.

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
      assert(e.getMessage.contains("00000000000000000001.crc"), e.getMessage)
      assert(e.getMessage.contains("version 1"), e.getMessage)
    }
  }

  test("a version without a checksum file is CHECKSUM_NOT_FOUND") {
    val table = copy("golden/deltalog-getChanges")
    val log = DeltaLog.forTable(spark, table.toString)
    val e = intercept[TxlogException](log.validateChecksum(1L))
    assert(e.errorClass === "CHECKSUM_NOT_FOUND")
    assert(e.getMessage.contains("00000000000000000001.crc"))
  }

  test("unknown fields are ignored and missing optional fields are not compared") {
    val table = copy("golden/commit-info-containing-arbitrary-operationParams-types")
    tamper(table, 0) { j =>
      j.put("someFutureField", "x")
      Seq("txnId", "setTransactions", "domainMetadata", "allFiles").foreach(j.remove)
    }
    assert(DeltaLog.forTable(spark, table.toString).validateChecksum(0L).isValid)
  }
}
