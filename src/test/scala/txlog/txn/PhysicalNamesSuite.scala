package txlog.txn

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.functions.{col, lit}

import txlog.{DeltaLog, SparkSuite, TxlogException}
import txlog.txn.TxnTestKit._

/** File actions name columns by their physical names under column mapping (spec, "Column Mapping",
  * writer requirements), on a table delta-spark created and wrote to: txlog's adds end up keyed as
  * delta-spark's own adds are, whether given logical or physical keys, and anything else is refused
  * before it is written.
  */
class PhysicalNamesSuite extends SparkSuite {

  private def add(path: String, pv: Map[String, String], stats: String): DataFrame = {
    val s = spark
    import s.implicits._
    Seq((path, 10L, pv, 1700000000000L, true, stats))
      .toDF("path", "size", "partitionValues", "modificationTime", "dataChange", "stats")
  }

  test("partition values by logical or physical name are written by physical name") {
    val dir = tempDir("names").resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$dir` (id BIGINT, part STRING) USING delta PARTITIONED BY (part) " +
        "TBLPROPERTIES ('delta.columnMapping.mode' = 'name')"
    )
    spark.sql(s"INSERT INTO delta.`$dir` VALUES (1, 'a')")
    RefLog.clearCache()
    val theirs = RefLog.forTable(spark, dir).update()
    val ref = theirs.allFiles.collect().head
    val physicalPart = ref.partitionValues.keySet.head
    val physicalId =
      theirs.metadata.schema("id").metadata.getString("delta.columnMapping.physicalName")
    assert(physicalPart != "part" && physicalId != "id", "delta-spark assigned physical names")

    val log = DeltaLog.forTable(spark, dir)
    val stats = s"""{"numRecords":1,"minValues":{"$physicalId":5},""" +
      s""""maxValues":{"$physicalId":5},"nullCount":{"$physicalId":0}}"""
    log.startTransaction().addFiles(add("logical.parquet", Map("part" -> "b"), stats)).commit()
    log
      .startTransaction()
      .addFiles(add("physical.parquet", Map(physicalPart -> "c"), stats))
      .commit()

    RefLog.clearCache()
    val files = RefLog.forTable(spark, dir).update().allFiles.collect().map(f => f.path -> f).toMap
    assert(files("logical.parquet").partitionValues === Map(physicalPart -> "b"))
    assert(files("physical.parquet").partitionValues === Map(physicalPart -> "c"))
    // txlog reads its own commits back with the logical names.
    val parsed = log
      .snapshot()
      .allFiles
      .where(col("path").isin("logical.parquet", "physical.parquet"))
      .orderBy("path")
      .select(col("partitionValues_parsed.part"), col("stats_parsed.maxValues.id"))
      .collect()
      .map(r => (r.getString(0), r.getLong(1)))
    assert(parsed.toSeq === Seq(("b", 5L), ("c", 5L)))
  }

  test("other partition keys, and stats by logical name under column mapping, are refused") {
    val dir = tempDir("names").resolve("t")
    val log = DeltaLog.createTable(
      spark,
      dir.toString,
      schema,
      Seq("part"),
      Map("delta.columnMapping.mode" -> "id")
    )
    val before = snapshotDir(dir)
    def refused(df: DataFrame): TxlogException =
      intercept[TxlogException](log.startTransaction().addFiles(df).commit())
    val logicalStats = """{"numRecords":1,"minValues":{"id":5},"maxValues":{"id":5}}"""
    val e = refused(add("f", Map("part" -> "a"), logicalStats))
    assert(e.errorClass === "INVALID_COMMIT_ACTIONS")
    assert(e.getMessage.contains("stats") && e.getMessage.contains("id"), e.getMessage)
    val wrong = refused(add("g", Map("other" -> "a"), null))
    assert(wrong.errorClass === "INVALID_COMMIT_ACTIONS")
    assert(wrong.getMessage.contains("other") && wrong.getMessage.contains("g"), wrong.getMessage)
    assert(snapshotDir(dir) === before)
    // A live file (partition values by logical name), then its remove without them.
    log.startTransaction().addFiles(add("x", Map("part" -> "a"), null)).commit()
    val nullKeys =
      removes(spark, Seq("x")).withColumn("partitionValues", lit(null).cast("map<string,string>"))
    assert(log.startTransaction().removeFiles(nullKeys).commit().committed, "optional on removes")
  }
}
