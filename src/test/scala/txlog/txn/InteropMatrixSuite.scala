package txlog.txn

import java.nio.file.{Files, Path => NPath}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.functions.{col, lit}

import txlog.{DeltaLog, Oracle, SparkSuite}
import txlog.txn.TxnTestKit._

/** Tables txlog creates and commits to, over a matrix of features, read by delta-spark at every
  * version: the files, transactions and domains the test committed (its own model), and the same
  * snapshot as txlog's (protocol, metadata, files, tombstones). Then delta-spark appends real data
  * on top and txlog reads that too.
  */
class InteropMatrixSuite extends SparkSuite {

  private val rows: Seq[(String, Seq[String], Map[String, String])] = Seq(
    ("plain", Nil, Map.empty),
    ("partitioned", Seq("part"), Map.empty),
    ("column mapping name", Seq("part"), Map("delta.columnMapping.mode" -> "name")),
    ("column mapping id", Nil, Map("delta.columnMapping.mode" -> "id")),
    ("in-commit timestamps", Seq("part"), Map("delta.enableInCommitTimestamps" -> "true")),
    ("row tracking", Nil, Map("delta.enableRowTracking" -> "true")),
    ("change data feed", Seq("part"), Map("delta.enableChangeDataFeed" -> "true")),
    ("v2 checkpoints", Nil, Map("delta.checkpointPolicy" -> "v2")),
    ("constraints", Nil, Map("delta.constraints.positive" -> "id > 0"))
  )

  /** Adds with stats (numRecords, min/max of id, under `idName`: its physical name under column
    * mapping) in partition `part` (when partitioned).
    */
  private def files(
      names: Seq[String],
      part: String,
      partitioned: Boolean,
      idName: String
  ): DataFrame = {
    val s = spark
    import s.implicits._
    names.zipWithIndex
      .map { case (n, i) =>
        val pv = if (partitioned) Map("part" -> part) else Map.empty[String, String]
        val stats =
          s"""{"numRecords":10,"minValues":{"$idName":${i + 1}},""" +
            s""""maxValues":{"$idName":${i + 9}},"nullCount":{"$idName":0}}"""
        (n, 1000L + i, pv, 1700000000000L, true, stats)
      }
      .toDF("path", "size", "partitionValues", "modificationTime", "dataChange", "stats")
  }

  /** The plain table and a third of the others, which third rotating by day, in `make test` (each
    * row is about 18 s of CI's time: all 9 were 160 s of a 35-minute run); every row with `make
    * test-breadth` and on each line of `make test-matrix`.
    */
  private val checked = txlog.testing.Breadth.share(rows, 3, "InteropMatrixSuite")(_._1 == "plain")

  checked.foreach { case (name, partitionBy, props) =>
    test(s"delta-spark reads every version txlog commits: $name") {
      val dir = tempDir("interop").resolve("t")
      val path = dir.toString
      val partitioned = partitionBy.nonEmpty
      val log =
        DeltaLog.createTable(
          spark,
          path,
          schema,
          partitionBy,
          props + ("delta.checkpointInterval" -> "3")
        )
      val idField = log.snapshot().metadata.schema("id")
      val physical = "delta.columnMapping.physicalName"
      val idName =
        if (idField.metadata.contains(physical)) idField.metadata.getString(physical) else "id"
      def files(names: Seq[String], part: String, partitioned: Boolean): DataFrame =
        this.files(names, part, partitioned, idName)
      // The model: live paths, app txns and domains after each version.
      var live = Set.empty[String]
      var txns = Map.empty[String, Long]
      var domains = Map.empty[String, String]
      val model = scala.collection.mutable.Buffer((live, txns, domains))
      def landed(v: Long): Unit = {
        assert(v === model.size.toLong)
        model += ((live, txns, domains))
      }

      landed(
        log.startTransaction().addFiles(files(Seq("a1", "a2"), "a", partitioned)).commit().version
      )
      live ++= Set("a1", "a2"); model(1) = (live, txns, domains)

      val t2 = log.startTransaction().addFiles(files(Seq("b1"), "b", partitioned))
      t2.setAppTransaction("app", 1L)
      txns += "app" -> 1L; live += "b1"
      landed(t2.commit().version)

      val t3 = log.startTransaction()
      t3.removeFiles(t3.readFiles(col("path") === "a1"))
      t3.addFiles(files(Seq("a3"), "a", partitioned))
      if (props.contains("delta.enableChangeDataFeed")) {
        val s = spark
        import s.implicits._
        val pv = if (partitioned) Map("part" -> "a") else Map.empty[String, String]
        t3.addCdcFiles(
          Seq(("_change_data/c1.parquet", 100L, pv, false))
            .toDF("path", "size", "partitionValues", "dataChange")
        )
      }
      live = live - "a1" + "a3"
      val r3 = t3.commit("UPDATE")
      landed(r3.version)
      assert(r3.checkpoint.map(_.version) === Some(3L), r3.postCommitProblems)

      val t4 = log.startTransaction()
      val md = log.snapshot().metadata
      t4.updateMetadata(
        md.copy(
          schemaString = md.schema.add("extra", "string").json,
          configuration = md.configuration + ("user.key" -> "v")
        )
      )
      if (log.snapshot().protocol.hasWriterFeature("domainMetadata")) {
        t4.setDomain("org.example", """{"k":1}""")
        domains += "org.example" -> """{"k":1}"""
      }
      landed(t4.commit("CHANGE COLUMN").version)

      val t5 = log.startTransaction().addFiles(files(Seq("b2"), "b", partitioned))
      t5.setAppTransaction("app", 2L)
      txns += "app" -> 2L; live += "b2"
      landed(t5.commit().version)

      val latest = log.snapshot().version
      assert(latest === 5L)
      (0L to latest).zip(Oracle.references(spark, path, 0L to latest)).foreach { case (v, r) =>
        val ref = r.get
        val (l, t, d) = model(v.toInt)
        assert(ref.live.map(f => new org.apache.hadoop.fs.Path(f._1).getName) === l, s"v$v files")
        assert(ref.txns === t, s"v$v txns")
        assert(ref.domains.filter(!_._1.startsWith("delta.")) === d, s"v$v domains")
        assert(Oracle.txlog(spark, path, Some(v)) === ref, s"v$v txlog vs delta-spark")
      }
      val checkpoints = Files.list(logDir(dir)).iterator().asScala.map(_.getFileName.toString)
      val cp3 = checkpoints.filter(_.startsWith("00000000000000000003.checkpoint")).toSeq
      if (props.contains("delta.checkpointPolicy")) {
        // A V2 checkpoint: UUID-named.
        assert(cp3.nonEmpty && cp3.forall(_.count(_ == '.') == 3), cp3)
      } else assert(cp3 === Seq("00000000000000000003.checkpoint.parquet"))
      RefLog.clearCache()
      val refSnap = RefLog.forTable(spark, path).update()
      // Partition values keyed as delta-spark names the partition columns in files (physical
      // names under column mapping).
      val keys = refSnap.metadata.physicalPartitionColumns.toSet
      refSnap.allFiles.collect().foreach(a => assert(a.partitionValues.keySet === keys, a.path))
      if (props.contains("delta.enableInCommitTimestamps")) {
        val ict = commitLines(dir, latest).head.get("commitInfo").get("inCommitTimestamp").asLong
        assert(refSnap.timestamp === ict)
      }
      if (props.contains("delta.enableRowTracking")) {
        val theirs = refSnap.allFiles
          .collect()
          .map(a => a.path -> (a.baseRowId, a.defaultRowCommitVersion))
          .toMap
        val ours = log
          .snapshot()
          .allFiles
          .select("path", "baseRowId", "defaultRowCommitVersion")
          .collect()
          .map(r => r.getString(0) -> (Option(r.getAs[Any](1)), Option(r.getAs[Any](2))))
          .toMap
        assert(theirs.keySet === ours.keySet)
        theirs.foreach { case (p, (b, d)) =>
          assert(b.isDefined && d.isDefined, p)
          assert(ours(p) === (b.map(x => x: Any), d.map(x => x: Any)), p)
        }
      }
      // delta-spark writes on top (real data); txlog reads its commit.
      val before = refSnap.version
      spark
        .range(1, 4)
        .select(col("id"), lit("c").as("part"), lit("x").as("extra"))
        .write
        .format("delta")
        .mode("append")
        .save(path)
      if (props.contains("delta.constraints.positive")) {
        val e = intercept[Exception](
          spark
            .range(-1, 0)
            .select(col("id"), lit("c").as("part"), lit("x").as("extra"))
            .write
            .format("delta")
            .mode("append")
            .save(path)
        )
        assert(e.getMessage.contains("positive"), e.getMessage)
      }
      assert(Oracle.txlog(spark, path, None) === Oracle.reference(spark, path, None))
      assert(DeltaLog.forTable(spark, path).snapshot().version === before + 1)
    }
  }
}
