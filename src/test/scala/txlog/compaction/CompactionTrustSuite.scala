package txlog.compaction

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import txlog.{DeltaLog, SparkSuite}
import txlog.protocol.FileNames

/** A log compaction that lost an add: readers using it miss the file, `validate` reports it against
  * the commits it stands for, and vacuum, which takes its keep-list from the commits, keeps the
  * file.
  */
class CompactionTrustSuite extends SparkSuite {
  private val Month = 30L * 24 * 3600 * 1000

  test("a compaction missing an add: validate reports it, vacuum keeps the file") {
    val t = tempDir("compaction-trust").resolve("t")
    (0 until 4).foreach(i =>
      spark.range(i * 10, i * 10 + 10).write.format("delta").mode("append").save(t.toString)
    )
    val log = DeltaLog.forTable(spark, t.toString)
    log.compact(1, 3)
    val compaction = t.resolve("_delta_log").resolve(FileNames.compactionName(1, 3))
    val commit2 = Files.readAllLines(t.resolve(f"_delta_log/${2}%020d.json")).asScala
    val lost = commit2.find(_.startsWith("{\"add\"")).get
    val lostPath = new com.fasterxml.jackson.databind.ObjectMapper()
      .readTree(lost)
      .get("add")
      .get("path")
      .asText
    val lines = Files.readAllLines(compaction).asScala
    assert(lines.exists(_.contains(lostPath)))
    Files.write(compaction, lines.filterNot(_.contains(lostPath)).asJava)
    Files.walk(t).iterator().asScala.filter(Files.isRegularFile(_)).foreach { f =>
      f.toFile.setLastModified(System.currentTimeMillis() - Month)
    }
    // Readers use the compaction: the file is missing from their snapshot.
    val adds = (0 to 3).map { v =>
      Files
        .readAllLines(t.resolve(f"_delta_log/$v%020d.json"))
        .asScala
        .count(_.startsWith("{\"add\""))
    }.sum
    val fresh = DeltaLog.forTable(spark, t.toString)
    assert(fresh.snapshot().numFiles === adds - 1)
    val findings = fresh.validate().where("rule = 'compaction-mismatch'").collect()
    assert(findings.length === 1, findings.toSeq)
    assert(findings.head.getAs[String]("severity") === "error")
    assert(findings.head.getAs[String]("file").endsWith(compaction.getFileName.toString))
    assert(findings.head.getAs[String]("detail").contains(lostPath), findings.head)
    val r = fresh.vacuum(Some(0.0), force = true)
    try assert(r.files.collect().map(_.getAs[String]("path")).toSet === Set.empty[String])
    finally r.unpersist()
    assert(Files.exists(t.resolve(lostPath)))
  }
}
