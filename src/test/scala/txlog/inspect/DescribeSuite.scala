package txlog.inspect

import java.sql.Timestamp

import org.apache.spark.sql.Row
import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.types.StructType

import txlog.{DeltaLog, Fixtures, SparkSuite}

/** `DeltaLog.describe()` agrees with delta-spark's `DESCRIBE DETAIL` (the oracle) on copies of
  * fixtures and on a table txlog creates; its log health matches the files on disk.
  */
class DescribeSuite extends SparkSuite {
  override def extraConf: Map[String, String] = Seq("objc", "objn").flatMap { s =>
    Seq(
      s"spark.hadoop.fs.$s.impl" -> classOf[txlog.storage.ObjectStoreLikeFileSystem].getName,
      s"spark.hadoop.fs.$s.impl.disable.cache" -> "true"
    )
  }.toMap

  private val fixtures = Seq(
    "golden/data-reader-partition-values",
    "golden/multi-part-checkpoint",
    "golden/table-with-columnmapping-mode-name",
    "golden/v2-checkpoint-parquet",
    "golden/basic-with-vacuum-protocol-check-feature",
    "kernel/basic-dv-with-checkpoint",
    "spark/delta-0.1.0",
    "spark/identity_test_written_by_version_5"
  )

  /** DESCRIBE DETAIL of `path` by delta-spark, as field -> value. */
  private def reference(path: String): Map[String, Any] = {
    RefLog.clearCache()
    val row = spark.sql(s"DESCRIBE DETAIL delta.`$path`").head()
    row.schema.fieldNames.map(f => f -> row.getAs[Any](f)).toMap
  }

  private def assertAgrees(path: String): Unit = {
    val ref = reference(path)
    val d = DeltaLog.forTable(spark, path).describe()
    def seq(f: String) =
      Option(ref(f)).map(_.asInstanceOf[scala.collection.Seq[String]].toSeq).orNull
    assert(d.format === ref("format"))
    assert(d.id === ref("id"))
    assert(d.name.orNull === ref("name"))
    assert(d.description.orNull === ref("description"))
    assert(d.location === ref("location"))
    assert(d.createdAt.orNull === ref("createdAt"))
    assert(d.lastModified === ref("lastModified").asInstanceOf[Timestamp], path)
    assert(d.partitionColumns === seq("partitionColumns"))
    assert(d.numFiles === ref("numFiles"))
    assert(d.sizeInBytes === ref("sizeInBytes"))
    assert(d.properties === ref("properties"))
    assert(d.minReaderVersion === ref("minReaderVersion"))
    assert(d.minWriterVersion === ref("minWriterVersion"))
    assert(d.tableFeatures === seq("tableFeatures"), path)
  }

  fixtures.foreach { name =>
    test(s"describe agrees with DESCRIBE DETAIL on a copy of $name") {
      assume(Fixtures.available, Fixtures.skipMessage)
      assertAgrees(Fixtures.copy(name, tempDir()).toString)
    }
  }

  test("describe agrees with DESCRIBE DETAIL on a table txlog creates and commits to") {
    val path = tempDir().resolve("t").toString
    val schema = StructType.fromDDL("id BIGINT, d STRING")
    val log = DeltaLog.createTable(
      spark,
      path,
      schema,
      Seq("d"),
      Map("delta.enableChangeDataFeed" -> "true", "delta.checkpointInterval" -> "2")
    )
    val session = spark
    import session.implicits._
    val files = Seq(("d=a/p0.parquet", 100L), ("d=b/p1.parquet", 250L))
      .toDF("path", "size")
      .selectExpr(
        "path",
        "size",
        "map('d', substr(path, 3, 1)) as partitionValues",
        "1700000000000L as modificationTime",
        "true as dataChange"
      )
    log.startTransaction().addFiles(files).commit("WRITE", Map.empty)
    log.startTransaction().addFiles(files.limit(0)).commit("WRITE", Map.empty)
    assertAgrees(path)
  }

  test("log health: checkpoint kind and age, commits since it, files, bytes, checksums") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val path = Fixtures.copy("golden/multi-part-checkpoint", tempDir())
    val logDir = path.resolve("_delta_log").toFile
    val now = System.currentTimeMillis()
    val h = DeltaLog.forTable(spark, path.toString).describe().health
    val names = logDir.list().toSeq.filterNot(_.startsWith("."))
    val commits = names.filter(_.matches("""\d{20}\.json""")).map(_.take(20).toLong)
    val parts = names.filter(_.matches("""\d{20}\.checkpoint\.\d+\.\d+\.parquet"""))
    val cpVersion = parts.map(_.take(20).toLong).max
    assert(h.checkpointVersion === Some(cpVersion))
    assert(h.checkpointKind === Some("multipart"))
    val written = parts.map(n => new java.io.File(logDir, n).lastModified()).max
    assert(
      h.checkpointAgeMillis.exists(a => a >= now - written - 5000 && a <= now - written + 60000)
    )
    assert(h.commitsSinceCheckpoint === commits.count(_ > cpVersion))
    val logFiles = names.filter(n => n.matches("""\d{20}\..*""") || n == "_last_checkpoint")
    assert(h.logFiles === logFiles.size)
    assert(h.logBytes === logFiles.map(n => new java.io.File(logDir, n).length()).sum)
    val crcs = names.filter(_.matches("""\d{20}\.crc""")).map(_.take(20).toLong)
    assert(h.latestChecksumVersion === crcs.reduceOption(_ max _))
    assert(h.checksumCurrent === crcs.contains(commits.max))
  }

  test("describe says how the storage publishes log files, and whether racing writers are safe") {
    val dir = tempDir("publishing").resolve("t").toString
    DeltaLog.createTable(spark, dir, txlog.txn.TxnTestKit.schema, Nil, Map.empty)
    def on(scheme: String) = new java.net.URI(scheme, null, dir, null).toString
    def publishing(path: String) = DeltaLog.forTable(spark, path).describe().publishing
    val local = publishing(dir)
    assert(local.scheme === "file" && local.concurrentWriters, local)
    val conditional = publishing(on("objc"))
    assert(conditional.scheme === "objc" && conditional.concurrentWriters, conditional)
    assert(conditional.method.contains("If-None-Match"), conditional)
    // Without a conditional create, describe says writes are refused, and a commit is.
    val plain = publishing(on("objn"))
    assert(!plain.concurrentWriters && plain.method.contains("STORAGE_NOT_ATOMIC"), plain)
    val e = intercept[txlog.TxlogException] {
      DeltaLog.forTable(spark, on("objn")).startTransaction().commit()
    }
    assert(e.errorClass === "STORAGE_NOT_ATOMIC")
    val key = txlog.storage.StorageConf.SingleWriterKey
    spark.conf.set(key, "true")
    try {
      val promised = publishing(on("objn"))
      assert(!promised.concurrentWriters && promised.method.contains("singleWriter"), promised)
    } finally spark.conf.unset(key)
    val json = DeltaLog.forTable(spark, dir).describe().toJson
    assert(json.contains("\"publishing\":{\"scheme\":\"file\","), json)
  }
}
