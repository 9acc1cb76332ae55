package txlog

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}

import scala.jdk.CollectionConverters._

import txlog.protocol.FileNames

/** Bad input gets a typed error naming the file and version, and never a write. */
class BadInputSuite extends SparkSuite {

  private def copy(name: String): Path = {
    assume(Fixtures.available, Fixtures.skipMessage)
    Fixtures.copy(name, tempDir())
  }
  private def logFile(t: Path, name: String): Path = t.resolve("_delta_log").resolve(name)
  private def append(f: Path, text: String): Unit =
    Files.write(f, text.getBytes(UTF_8), StandardOpenOption.APPEND)
  private def error(t: Path)(read: DeltaLog => Any): TxlogException =
    intercept[TxlogException](read(DeltaLog.forTable(spark, t.toString)))
  private def view(t: Path) = Oracle.txlog(spark, t.toString, None)

  test("a malformed JSON line names the commit file and version") {
    val t = copy("golden/checkpoint")
    append(logFile(t, FileNames.commitName(13)), "{\"add\": {\"path\": \"x\", \n")
    val e = error(t)(_.snapshot())
    assert(e.errorClass === "MALFORMED_LOG_FILE")
    assert(e.getMessage.contains("00000000000000000013.json"))
    assert(e.getMessage.contains("version 13"))
  }

  test("an action field of the wrong type is malformed too") {
    val t = copy("golden/checkpoint")
    append(logFile(t, FileNames.commitName(12)), "{\"txn\":{\"appId\":\"a\",\"version\":\"x\"}}\n")
    assert(error(t)(_.snapshot()).errorClass === "MALFORMED_LOG_FILE")
  }

  test("read by tasks (a large tail), bad lines are MALFORMED_LOG_FILE naming file and version") {
    val t = copy("golden/checkpoint")
    spark.conf.set(txlog.replay.LogLineReader.LocalReadMaxBytesConf, "0")
    try {
      append(logFile(t, FileNames.commitName(12)), "{\"add\":{\"path\":\"x\",\"size\":\"big\"}}\n")
      // A file action of the wrong type: found by the job that reconciles files.
      val wrongType = error(t)(_.snapshot().numFiles)
      assert(wrongType.errorClass === "MALFORMED_LOG_FILE")
      assert(wrongType.getMessage.contains("00000000000000000012.json"))
      assert(wrongType.getMessage.contains("version 12"))
      // Not JSON at all: found while reading protocol and metadata.
      append(logFile(t, FileNames.commitName(13)), "{\"remove\": {\"path\": \n")
      val notJson = error(t)(_.snapshot())
      assert(notJson.errorClass === "MALFORMED_LOG_FILE")
      assert(notJson.getMessage.contains("00000000000000000013.json"))
    } finally spark.conf.unset(txlog.replay.LogLineReader.LocalReadMaxBytesConf)
  }

  test("unknown actions and unknown fields are ignored") {
    val t = copy("golden/checkpoint")
    val before = Oracle.reference(spark, t.toString, None)
    append(
      logFile(t, FileNames.commitName(14)),
      "{\"futureAction\":{\"x\":1}}\n{\"txn\":{\"appId\":\"a\",\"version\":3,\"future\":[1]}}\n"
    )
    val after = DeltaLog.forTable(spark, t.toString).snapshot()
    assert(after.setTransactions === Map("a" -> 3L))
    assert(view(t).copy(txns = Map.empty) === before)
  }

  test("a truncated checkpoint parquet names the checkpoint and version") {
    val t = copy("golden/checkpoint")
    val cp = logFile(t, FileNames.classicCheckpointName(10))
    val bytes = Files.readAllBytes(cp)
    Files.write(cp, bytes.take(bytes.length / 2))
    Files.deleteIfExists(logFile(t, s".${cp.getFileName}.crc"))
    val e = error(t)(_.snapshot())
    assert(e.errorClass === "MALFORMED_LOG_FILE")
    assert(e.getMessage.contains(cp.getFileName.toString))
    assert(e.getMessage.contains("version 10"))
  }

  test("a multi-part checkpoint with a missing part is skipped") {
    val t = copy("golden/multi-part-checkpoint")
    val expected = Oracle.reference(spark, t.toString, None)
    Files.delete(logFile(t, "00000000000000000001.checkpoint.0000000002.0000000002.parquet"))
    val snap = DeltaLog.forTable(spark, t.toString).snapshot()
    assert(snap.checkpointVersion === None)
    assert(view(t) === expected)
  }

  test("a corrupt, stale or dangling _last_checkpoint falls back to listing") {
    val t = copy("golden/checkpoint")
    val expected = Oracle.reference(spark, t.toString, None)
    val hint = logFile(t, FileNames.LastCheckpoint)
    Seq(
      "not json at all",
      """{"version":10,"size":13,"checksum":"00000000000000000000000000000000"}""",
      """{"version":99,"size":13}""",
      """{"version":4,"size":13,"parts":3}"""
    ).foreach { text =>
      Files.write(hint, text.getBytes(UTF_8))
      assert(view(t) === expected, text)
      assert(DeltaLog.forTable(spark, t.toString).snapshot().checkpointVersion === Some(10L))
    }
  }

  test("a gap in commit versions is LOG_VERSION_GAP naming the versions") {
    val t = copy("golden/time-travel-start-start20-start40")
    Files.delete(logFile(t, FileNames.commitName(1)))
    val e = error(t)(_.snapshot())
    assert(e.errorClass === "LOG_VERSION_GAP")
    assert(e.getMessage.contains("missing versions 1 to 1"))
    assert(DeltaLog.forTable(spark, t.toString).snapshot(0L).version === 0)
  }

  test("a log that starts after 0 with no checkpoint is MISSING_LOG_FILES") {
    val t = copy("golden/time-travel-start-start20-start40")
    Files.delete(logFile(t, FileNames.commitName(0)))
    val e = error(t)(_.snapshot())
    assert(e.errorClass === "MISSING_LOG_FILES")
    assert(e.getMessage.contains("starts at commit 1"))
  }

  test("no _delta_log, or an empty one, is DELTA_TABLE_NOT_FOUND") {
    val dir = tempDir()
    assert(error(dir)(_.snapshot()).errorClass === "DELTA_TABLE_NOT_FOUND")
    Files.createDirectory(dir.resolve("_delta_log"))
    assert(error(dir)(_.snapshot()).errorClass === "DELTA_TABLE_NOT_FOUND")
  }

  test("versions out of range are VERSION_NOT_FOUND naming the range") {
    val t = copy("golden/time-travel-start-start20-start40")
    val e = error(t)(_.snapshot(7L))
    assert(e.errorClass === "VERSION_NOT_FOUND")
    assert(e.getMessage.contains("Versions 0 to 2"))
  }

  test("an unsupported reader feature is refused, naming it") {
    val t = copy("golden/time-travel-start-start20-start40")
    append(
      logFile(t, FileNames.commitName(2)),
      "{\"protocol\":{\"minReaderVersion\":3," +
        "\"minWriterVersion\":7,\"readerFeatures\":[\"futureFeature\",\"deletionVectors\"]," +
        "\"writerFeatures\":[\"deletionVectors\"]}}\n"
    )
    val e = error(t)(_.snapshot())
    assert(e.errorClass === "UNSUPPORTED_READER_FEATURES")
    assert(e.getMessage.contains("futureFeature"))
    assert(!e.getMessage.contains("deletionVectors"))
    assert(DeltaLog.forTable(spark, t.toString).snapshot(1L).version === 1)
  }

  test("readerFeatures with a reader version other than 3 is INVALID_PROTOCOL") {
    val t = copy("golden/time-travel-start-start20-start40")
    append(
      logFile(t, FileNames.commitName(2)),
      "{\"protocol\":{\"minReaderVersion\":2," +
        "\"minWriterVersion\":5,\"readerFeatures\":[\"columnMapping\"]}}\n"
    )
    assert(error(t)(_.snapshot()).errorClass === "INVALID_PROTOCOL")
  }

  test("a reader version above 3 is UNSUPPORTED_READER_VERSION") {
    val t = copy("golden/time-travel-start-start20-start40")
    append(
      logFile(t, FileNames.commitName(2)),
      "{\"protocol\":{\"minReaderVersion\":4,\"minWriterVersion\":7}}\n"
    )
    assert(error(t)(_.snapshot()).errorClass === "UNSUPPORTED_READER_VERSION")
  }

  test("reading never writes to the table directory") {
    val t = copy("golden/checkpoint")
    def state = {
      val s = Files.walk(t)
      try
        s.iterator()
          .asScala
          .map(p =>
            t.relativize(p).toString ->
              Files.getLastModifiedTime(p).toMillis
          )
          .toList
          .sorted
      finally s.close()
    }
    val before = state
    val log = DeltaLog.forTable(spark, t.toString)
    val snap = log.snapshot()
    snap.allFiles.count(); snap.tombstones.count(); snap.numFiles
    log.snapshot(3L).allFiles.count()
    log.history().collect()
    log.update()
    assert(state === before)
  }
}
