package txlog.checksum

import scala.collection.mutable.ArrayBuffer

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.JsonNodeFactory

import txlog.{ChecksumMismatch, ChecksumValidation, Snapshot}

/** The spec's "State Validation": the checksum file of a version is compared field by field with
  * the same values recomputed from a replay of the log. The file size histogram is recomputed over
  * the bin boundaries found in the file. An optional field the file omits is not compared; so are
  * `metadata` and `protocol` when omitted (delta-spark before 1.0 wrote checksums with only the
  * counts, although the spec now requires both). Transactions are compared as of the version's
  * commit timestamp (those within `delta.setTransactionRetentionDuration` of it), the state the
  * checksum recorded, so a valid checksum does not turn invalid as it ages.
  */
private[txlog] object ChecksumValidator {
  private val nodes = JsonNodeFactory.instance

  def validate(snapshot: Snapshot): ChecksumValidation = {
    val file = StoredChecksum.read(snapshot.segment.table, snapshot.version)
    val boundaries = file.histogram
      .map(_._2.sortedBinBoundaries)
      .getOrElse(FileSizeHistogram.DefaultBoundaries)
    val files = FileAggregates.compute(snapshot, boundaries)
    val out = ArrayBuffer.empty[ChecksumMismatch]
    def check(field: String, expected: String, actual: String): Unit =
      if (expected != actual) out += ChecksumMismatch(snapshot.version, field, expected, actual)
    def checkLong(field: String, actual: Long): Unit =
      file.long(field).foreach(e => check(field, e.toString, actual.toString))

    checkLong("tableSizeBytes", files.tableSizeBytes)
    checkLong("numFiles", files.numFiles)
    checkLong("numMetadata", 1L)
    checkLong("numProtocol", 1L)
    file.long("inCommitTimestampOpt").foreach { e =>
      val ict = snapshot.config.inCommitTimestamps
      check("inCommitTimestampOpt", e.toString, if (ict) snapshot.timestamp.toString else "null")
    }
    checkMetadata(file, snapshot, check)
    checkProtocol(file, snapshot, check)
    file.array("setTransactions").foreach { txns =>
      val expected = txns.map(t => text(t.get("appId")) -> t.get("version"))
      // As of the checksum's own commit time, not now: a valid checksum stays valid as it ages.
      val actual = snapshot
        .liveTransactionsAt(snapshot.timestamp)
        .map(t => t.appId -> nodes.numberNode(t.version))
      check("setTransactions", renderMap(expected), renderMap(actual.toSeq))
    }
    file.array("domainMetadata").foreach { ds =>
      val live = ds.filterNot(d => Option(d.get("removed")).exists(_.asBoolean(false)))
      val expected = live.map(d => text(d.get("domain")) -> d.get("configuration"))
      val actual = snapshot.state.domains.values
        .map(d => d.domain -> nodes.textNode(d.configuration))
      check("domainMetadata", renderMap(expected), renderMap(actual.toSeq))
    }
    file.histogram.foreach { case (name, h) =>
      check(s"$name.fileCounts", longs(h.fileCounts), longs(files.histogram.fileCounts))
      check(s"$name.totalBytes", longs(h.totalBytes), longs(files.histogram.totalBytes))
    }
    checkLong("numDeletedRecordsOpt", files.numDeletedRecords)
    checkLong("numDeletionVectorsOpt", files.numDeletionVectors)
    file.deletedRecordCounts.foreach { e =>
      check(
        "deletedRecordCountsHistogramOpt.deletedRecordCounts",
        longs(e),
        longs(files.deletedRecordCounts)
      )
    }
    ChecksumValidation(snapshot.version, out.toSeq)
  }

  private type Check = (String, String, String) => Unit

  private def checkMetadata(file: StoredChecksum, snapshot: Snapshot, check: Check): Unit =
    file.obj("metadata").foreach { e =>
      val a = ChecksumJson.metadataJson(snapshot.metadata)
      def format(m: JsonNode, f: String): JsonNode = Option(m.get("format")).map(_.get(f)).orNull
      Seq(
        ("id", e.get("id"), a.get("id")),
        ("name", e.get("name"), a.get("name")),
        ("description", e.get("description"), a.get("description")),
        (
          "format.provider",
          orElse(format(e, "provider"), nodes.textNode("parquet")),
          format(a, "provider")
        ),
        ("format.options", orElse(format(e, "options"), nodes.objectNode()), format(a, "options")),
        ("schemaString", e.get("schemaString"), a.get("schemaString")),
        (
          "partitionColumns",
          orElse(e.get("partitionColumns"), nodes.arrayNode()),
          a.get("partitionColumns")
        ),
        (
          "configuration",
          orElse(e.get("configuration"), nodes.objectNode()),
          a.get("configuration")
        ),
        ("createdTime", e.get("createdTime"), a.get("createdTime"))
      ).foreach { case (f, ev, av) =>
        check(s"metadata.$f", ChecksumJson.render(ev), ChecksumJson.render(av))
      }
    }

  private def checkProtocol(file: StoredChecksum, snapshot: Snapshot, check: Check): Unit =
    file.obj("protocol").foreach { e =>
      val a = ChecksumJson.protocolJson(snapshot.protocol)
      Seq("minReaderVersion", "minWriterVersion").foreach { f =>
        check(s"protocol.$f", ChecksumJson.render(e.get(f)), ChecksumJson.render(a.get(f)))
      }
      Seq("readerFeatures", "writerFeatures").foreach { f =>
        check(s"protocol.$f", sortedStrings(e.get(f)), sortedStrings(a.get(f)))
      }
    }

  private def orElse(n: JsonNode, default: JsonNode): JsonNode =
    if (n == null || n.isNull) default else n

  private def text(n: JsonNode): String = ChecksumJson.render(n)

  private def longs(xs: Seq[Long]): String = xs.mkString("[", ",", "]")

  /** A JSON array of strings as a sorted set; "null" when absent. */
  private def sortedStrings(n: JsonNode): String =
    if (n == null || n.isNull) "null"
    else if (!n.isArray) ChecksumJson.render(n)
    else {
      val a = nodes.arrayNode()
      Seq.tabulate(n.size)(i => ChecksumJson.render(n.get(i))).sorted.foreach(a.add)
      ChecksumJson.render(a)
    }

  /** Key-value pairs as one JSON object with sorted keys (later duplicates win). */
  private def renderMap(pairs: Seq[(String, JsonNode)]): String = {
    val o = nodes.objectNode()
    pairs.sortBy(_._1).foreach { case (k, v) => o.set[JsonNode](k, orElse(v, nodes.nullNode())) }
    ChecksumJson.render(o)
  }
}
