package txlog.txn

import scala.io.Source

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.functions.col

import txlog.{DeltaLog, SparkSuite, TxlogException}

/** Row ids for a commit's new files: the high water mark delta-spark reaches for the same files,
  * and ranges that cover the new ids exactly once (the spec's "Row Tracking").
  */
class RowTrackingSuite extends SparkSuite {
  private val mapper = new ObjectMapper()

  /** delta-spark's add lines and rowTracking domain configuration in commit `v` of `dir`. */
  private def commit(dir: String, v: Long) = {
    val src = Source.fromFile(f"$dir/_delta_log/$v%020d.json")
    val lines =
      try src.getLines().toList
      finally src.close()
    val nodes = lines.map(mapper.readTree)
    val adds = nodes.filter(_.has("add")).map(_.get("add"))
    val hwm = nodes
      .filter(n =>
        n.has("domainMetadata") && n.get("domainMetadata").get("domain").asText ==
          "delta.rowTracking"
      )
      .map(n => mapper.readTree(n.get("domainMetadata").get("configuration").asText))
      .map(_.get("rowIdHighWaterMark").asLong)
      .headOption
    (adds, hwm)
  }

  test("new files get the ranges and the high water mark delta-spark gives them") {
    val dir = tempDir("rt").resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$dir` (id BIGINT) USING delta " +
        "TBLPROPERTIES ('delta.enableRowTracking' = 'true')"
    )
    spark.range(0, 7, 1, 2).write.format("delta").mode("append").save(dir)
    spark.range(0, 5, 1, 3).write.format("delta").mode("append").save(dir)
    val (_, hwm1) = commit(dir, 1)
    val (adds2, hwm2) = commit(dir, 2)
    val snap = DeltaLog.forTable(spark, dir).snapshot(1L)
    // Commit 2's files as a writer stages them: without row ids.
    val staged = snap.allFiles
      .limit(0)
      .unionByName(
        DeltaLog
          .forTable(spark, dir)
          .snapshot(2L)
          .allFiles
          .join(snap.allFiles.select("path"), Seq("path"), "left_anti")
      )
      .drop("baseRowId", "defaultRowCommitVersion", "partitionValues_parsed", "stats_parsed")
    val (assigned, domain) =
      RowTracking.assign(staged, snap.protocol, snap.metadata, hwm1, 2L)
    assert(domain.map(_.configuration) === hwm2.map(h => s"""{"rowIdHighWaterMark":$h}"""))
    val ranges = assigned
      .select(col("baseRowId"), col("stats"), col("defaultRowCommitVersion"))
      .collect()
      .map { r =>
        val n = mapper.readTree(r.getString(1)).get("numRecords").asLong
        assert(r.getLong(2) === 2L)
        (r.getLong(0), r.getLong(0) + n - 1)
      }
      .sortBy(_._1)
    assert(ranges.length === adds2.size)
    assert(ranges.head._1 === hwm1.get + 1)
    ranges.sliding(2).foreach { case Array(a, b) => assert(b._1 === a._2 + 1); case _ => }
    assert(ranges.last._2 === hwm2.get)
  }

  test("a new file without numRecords stats is refused") {
    val dir = tempDir("rt").resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$dir` (id BIGINT) USING delta " +
        "TBLPROPERTIES ('delta.enableRowTracking' = 'true')"
    )
    spark.range(0, 3, 1, 1).write.format("delta").mode("append").save(dir)
    val snap = DeltaLog.forTable(spark, dir).snapshot()
    val noStats = snap.allFiles
      .drop("baseRowId", "defaultRowCommitVersion")
      .withColumn("stats", org.apache.spark.sql.functions.lit(null).cast("string"))
    val e = intercept[TxlogException](
      RowTracking.assign(noStats, snap.protocol, snap.metadata, Some(2L), 2L)
    )
    assert(e.errorClass === "INVALID_COMMIT_ACTIONS")
  }
}
