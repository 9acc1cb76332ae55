package txlog.txn

import java.nio.file.{Files, Path => NPath}

import scala.collection.mutable

import org.apache.spark.sql.delta.RefVersions
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.delta.stats.{
  DeletedRecordCountsHistogramUtils => RefDeletedHistogram,
  FileSizeHistogramUtils => RefFileSizeHistogramUtils
}
import org.apache.spark.sql.functions.{col, lit}

import txlog.{DeltaLog, Protocol, SparkSuite}
import txlog.txn.TxnTestKit._

/** Version checksums written on commit, derived from the previous one: delta-spark accepts every
  * one (its own validation, and its recount of the snapshot field by field), and no job recounts
  * the table's files.
  */
class CommitChecksumSuite extends SparkSuite {

  private def crc(dir: NPath, v: Long): NPath = logDir(dir).resolve(f"$v%020d.crc")

  /** Adds of (path, size) in partition part=a. */
  private def sized(files: (String, Long)*): DataFrame = {
    val s = spark
    import s.implicits._
    files
      .map { case (p, n) => (p, n, Map("part" -> "a"), 1700000000000L, true) }
      .toDF("path", "size", "partitionValues", "modificationTime", "dataChange")
  }

  /** Descriptions of the Spark jobs `body` runs. */
  private def jobsOf[T](body: => T): (T, Seq[String]) =
    txlog.testing.JobDescriptions.of(spark)(body)

  /** delta-spark validates `v`'s checksum and its fields equal delta-spark's own recount. */
  private def assertAccepted(dir: NPath, v: Long): Unit = {
    RefLog.clearCache()
    val s = RefVersions.snapshotAt(RefLog.forTable(spark, dir.toString), v)
    val c = s.checksumOpt.getOrElse(fail(s"delta-spark did not read v$v's checksum"))
    assert(s.validateChecksum(Map.empty), s"delta-spark finds v$v's checksum invalid")
    val files = s.allFiles.collect().toSeq
    assert(c.numFiles === files.size, s"v$v numFiles")
    assert(c.tableSizeBytes === files.map(_.size).sum, s"v$v tableSizeBytes")
    assert(c.metadata === s.metadata, s"v$v metadata")
    assert(c.protocol === s.protocol, s"v$v protocol")
    assert(c.setTransactions.getOrElse(Nil).toSet === s.setTransactions.toSet, s"v$v txns")
    assert(c.domainMetadata.getOrElse(Nil).toSet === s.domainMetadata.toSet, s"v$v domains")
    val hist = RefFileSizeHistogramUtils.emptyHistogram
    files.foreach(f => hist.insert(f.size))
    val got = c.fileSizeHistogram.getOrElse(fail(s"v$v: no file size histogram"))
    assert(got.fileCounts.toSeq === hist.fileCounts.toSeq, s"v$v histogram counts")
    assert(got.totalBytes.toSeq === hist.totalBytes.toSeq, s"v$v histogram bytes")
    if (s.protocol.readerFeatureNames.contains("deletionVectors")) {
      val dvs = files.flatMap(f => Option(f.deletionVector))
      assert(c.numDeletionVectorsOpt === Some(dvs.size.toLong), s"v$v DVs")
      assert(c.numDeletedRecordsOpt === Some(dvs.map(_.cardinality).sum), s"v$v deleted")
      val deleted = RefDeletedHistogram.emptyHistogram
      files.foreach(f => deleted.insert(Option(f.deletionVector).fold(0L)(_.cardinality)))
      assert(
        c.deletedRecordCountsHistogramOpt.map(_.deletedRecordCounts.toSeq) ===
          Some(deleted.deletedRecordCounts.toSeq),
        s"v$v deleted record counts"
      )
    }
  }

  // The driver path (small commits) and the distributed one (forced by a 1-byte driver budget:
  // actions checked and tallied by a job, staged by executors) must write the same checksums.
  private val paths = Seq("driver" -> None, "distributed" -> Some("1"))

  paths.foreach { case (name, budget) =>
    test(s"every commit writes a checksum delta-spark accepts, without recounting ($name)") {
      budget.foreach(spark.conf.set(txlog.config.TxlogConf.CommitMaxDriverBytes.key, _))
      try checksumsAccepted(name)
      finally spark.conf.unset(txlog.config.TxlogConf.CommitMaxDriverBytes.key)
    }
  }

  private def checksumsAccepted(path: String): Unit = {
    val dir = tempDir("crc").resolve("t")
    val log = DeltaLog.createTable(
      spark,
      dir.toString,
      schema,
      Seq("part"),
      Map("delta.enableInCommitTimestamps" -> "true", "delta.feature.domainMetadata" -> "supported")
    )
    val results = mutable.Buffer(log.snapshot().version)
    def commit(t: txlog.Transaction, op: String): Unit = {
      val (r, jobs) = jobsOf(t.commit(op))
      assert(r.committed)
      assert(r.checksum.isDefined, s"v${r.version}: no checksum written")
      assert(!jobs.exists(_.contains("version checksum")), jobs)
      val staged = jobs.exists(_.contains("stage the commit actions"))
      val checked = jobs.exists(_.contains("check the commit actions"))
      if (path == "driver") assert(!staged && !checked, jobs)
      else assert(staged && checked || jobs.isEmpty, jobs)
      results += r.version
    }
    // Sizes in different histogram bins (0, 8 KB-16 KB, 4 MB-8 MB).
    commit(
      log.startTransaction().addFiles(sized("a" -> 100L, "b" -> 9000L, "c" -> 5000000L)),
      "WRITE"
    )
    val t2 = log.startTransaction().addFiles(sized("d" -> 70000L))
    t2.setAppTransaction("app-1", 3L)
    t2.setDomain("my.domain", """{"k":1}""")
    commit(t2, "WRITE")
    val t3 = log.startTransaction()
    val b = t3.readFiles(col("path") === "b")
    assert(b.count() === 1L)
    t3.removeFiles(b)
    t3.addFiles(sized("e" -> 9100L))
    commit(t3, "UPDATE")
    val t4 = log.startTransaction()
    val md = log.snapshot().metadata
    t4.updateMetadata(md.copy(configuration = md.configuration + ("x" -> "y")))
    t4.removeDomain("my.domain")
    commit(t4, "SET TBLPROPERTIES")
    // Deletion vectors: the protocol gains the feature, then a file gets a DV (remove + add).
    val t5 = log.startTransaction()
    val p = log.snapshot().protocol
    t5.upgradeProtocol(
      Protocol(
        3,
        7,
        Some(p.readerFeatures.getOrElse(Set.empty) + "deletionVectors"),
        Some(p.writerFeatures.getOrElse(Set.empty) + "deletionVectors")
      )
    )
    val md5 = log.snapshot().metadata
    t5.updateMetadata(
      md5.copy(configuration = md5.configuration + ("delta.enableDeletionVectors" -> "true"))
    )
    commit(t5, "UPGRADE PROTOCOL")
    val t6 = log.startTransaction()
    val old = t6.readFiles(col("path") === "d")
    assert(old.count() === 1L)
    t6.removeFiles(old)
    t6.addFiles(
      old
        .select("path", "size", "partitionValues", "modificationTime")
        .withColumn("dataChange", lit(true))
        // A file with a DV: its row count (the spec's writer requirement).
        .withColumn("stats", lit("""{"numRecords":5,"tightBounds":false}"""))
        .withColumn(
          "deletionVector",
          org.apache.spark.sql.functions.struct(
            lit("u").as("storageType"),
            lit("ab^-aqEH.-t@S}K{vb[*k^").as("pathOrInlineDv"),
            lit(1).as("offset"),
            lit(36).as("sizeInBytes"),
            lit(3L).as("cardinality")
          )
        )
    )
    commit(t6, "DELETE")
    assert(results.toSeq === (0L to 6L))
    (0L to 6L).foreach { v =>
      assert(Files.isRegularFile(crc(dir, v)), s"v$v.crc")
      assertAccepted(dir, v)
    }
  }

  test("no checksum when the previous one is missing or a remove has no size") {
    val dir = tempDir("crc").resolve("t")
    val log = DeltaLog.createTable(spark, dir.toString, schema, Seq("part"), Map.empty)
    assert(Files.isRegularFile(crc(dir, 0L)))
    val r1 = log.startTransaction().addFiles(sized("a" -> 10L, "b" -> 20L)).commit()
    assert(r1.checksum.isDefined)
    // A remove without size: the new total cannot be derived, so no file is written.
    val r2 = log.startTransaction().removeFiles(removes(spark, Seq("a"))).commit()
    assert(r2.committed && r2.checksum.isEmpty && r2.postCommitProblems.isEmpty, r2)
    assert(!Files.exists(crc(dir, 2L)))
    // Without the previous checksum there is nothing to derive from (no recount either).
    val (r3, jobs) = jobsOf(log.startTransaction().addFiles(sized("c" -> 5L)).commit())
    assert(r3.committed && r3.checksum.isEmpty, r3)
    assert(!jobs.exists(_.contains("version checksum")), jobs)
    assert(!Files.exists(crc(dir, 3L)))
    // delta-spark still reads the table, and accepts the checksums that were written.
    assertAccepted(dir, 1L)
    RefLog.clearCache()
    assert(RefLog.forTable(spark, dir.toString).update().allFiles.count() === 2L)
  }
}
