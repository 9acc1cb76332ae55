package txlog.compaction

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import txlog.{DeltaLog, Oracle, SparkSuite}
import txlog.protocol.FileNames

/** A log compaction keeps what it does not understand: fields txlog's schemas do not name, and
  * actions of types it does not know (kept, in commit order: readers ignore them, see the
  * protocol's "Protocol Evolution"). delta-spark reads the compacted table as it read the commits.
  */
class CompactionFidelitySuite extends SparkSuite {

  /** delta-spark reads log compactions in place of the commits they cover. */
  override def extraConf: Map[String, String] =
    Map("spark.databricks.delta.deltaLog.minorCompaction.useForReads" -> "true")

  private val future = """"futureField":{"x":1,"list":[1,2]}"""
  private val unknownAction = """{"futureAction":{"id":"a1","n":7}}"""
  private val schema =
    """{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",""" +
      """\"nullable\":true,\"metadata\":{}}]}"""

  private def table(): Path = {
    val t = tempDir().resolve("t")
    val log = Files.createDirectories(t.resolve("_delta_log"))
    def commit(v: Long, lines: String*): Unit =
      Files.write(log.resolve(FileNames.commitName(v)), lines.asJava, UTF_8)
    def add(p: String, size: Long) =
      s"""{"add":{"path":"$p","partitionValues":{},"size":$size,"modificationTime":1,""" +
        s""""dataChange":true,$future}}"""
    commit(
      0,
      """{"commitInfo":{"timestamp":1,"operation":"WRITE"}}""",
      """{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}""",
      s"""{"metaData":{"id":"fidelity","format":{"provider":"parquet","options":{}},""" +
        s""""schemaString":"$schema","partitionColumns":[],"configuration":{},""" +
        s""""createdTime":1,"futureMeta":{"k":"v"}}}""",
      add("a.parquet", 10),
      unknownAction
    )
    commit(1, add("b.parquet", 20), """{"futureAction":{"id":"a2","n":8}}""")
    commit(
      2,
      s"""{"remove":{"path":"a.parquet","deletionTimestamp":${System.currentTimeMillis()},""" +
        s""""dataChange":true,$future}}""",
      add("c.parquet", 30)
    )
    t
  }

  test("compaction keeps unknown fields and unknown actions; delta-spark reads it the same") {
    val t = table()
    val before = Oracle.reference(spark, t.toString, None)
    val written = DeltaLog.forTable(spark, t.toString).compact(0, 2)
    val lines = Files.readAllLines(t.resolve("_delta_log").resolve(FileNames.compactionName(0, 2)))
    val text = lines.asScala
    assert(written.endsWith(FileNames.compactionName(0, 2)))
    assert(text.count(_.contains(future)) === 3, text.mkString("\n")) // b, c added; a removed
    assert(
      text.exists(l => l.startsWith("""{"metaData"""") && l.contains(""""futureMeta":{"k":"v"}"""))
    )
    assert(text.contains(unknownAction))
    assert(text.contains("""{"futureAction":{"id":"a2","n":8}}"""))
    assert(text.indexOf(unknownAction) < text.indexOf("""{"futureAction":{"id":"a2","n":8}}"""))
    assert(!text.exists(_.contains("commitInfo")))
    assert(Oracle.reference(spark, t.toString, None) === before)
    assert(Oracle.txlog(spark, t.toString, None) === before)
  }
}

/** The same, with every commit read by tasks. */
class DistributedCompactionFidelitySuite extends CompactionFidelitySuite {
  override def extraConf: Map[String, String] =
    super.extraConf + (txlog.replay.LogLineReader.LocalReadMaxBytesConf -> "0")
}
