package txlog.write

import java.nio.file.{Files, Paths}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.types.{LongType, MetadataBuilder, StructType}

import txlog.{DeltaLog, SparkSuite, TxlogException, WriteOptions}
import txlog.scan.Rows

/** The table's rules on what `DeltaLog.write` writes (CHECK constraints, invariants, generated
  * columns, NOT NULL) and the writes that remove by partition (`replaceWhere`, `DeltaLog.delete`):
  * a row breaking a rule fails the write with no commit; what is removed is what delta-spark sees
  * removed.
  */
class WriteRulesSuite extends SparkSuite {

  private def table(name: String): String = tempDir(name).resolve("t").toString

  private def rows(t: String): Seq[String] = Rows.sorted(spark.read.format("delta").load(t))

  private def parquetFiles(t: String): Int =
    Files.walk(Paths.get(t)).iterator().asScala.count(_.toString.endsWith(".parquet"))

  /** `write` fails with `cls`, and the table has no new version. */
  private def refused(t: String, cls: String)(write: => Any): TxlogException = {
    val version = DeltaLog.forTable(spark, t).snapshot().version
    val e = intercept[TxlogException](write)
    assert(e.errorClass === cls, e.getMessage)
    assert(DeltaLog.forTable(spark, t).snapshot().version === version, "no new commit")
    e
  }

  test("CHECK constraints: a row breaking one (false or null) fails the write, naming it") {
    val t = table("rules-check")
    spark.sql(s"CREATE TABLE delta.`$t` (id BIGINT, name STRING) USING delta")
    spark.sql(s"ALTER TABLE delta.`$t` ADD CONSTRAINT positive CHECK (id > 0)")
    val e = refused(t, "CONSTRAINT_VIOLATION") {
      DeltaLog.write(spark.sql("SELECT id - 2 AS id, 'x' AS name FROM range(5)"), t)
    }
    assert(e.getMessage.contains("CHECK positive (id > 0)"), e.getMessage)
    assert(e.getMessage.contains("id = "), e.getMessage)
    refused(t, "CONSTRAINT_VIOLATION") {
      DeltaLog.write(spark.sql("SELECT CAST(NULL AS BIGINT) AS id, 'x' AS name"), t)
    }
    DeltaLog.write(spark.sql("SELECT id + 1 AS id, 'x' AS name FROM range(3)"), t)
    assert(rows(t) === Seq("{1, x}", "{2, x}", "{3, x}"))
  }

  test("column invariants are checked as CHECK constraints are") {
    val t = table("rules-invariant")
    val meta = new MetadataBuilder()
      .putString("delta.invariants", """{"expression":{"expression":"id < 100"}}""")
      .build()
    val schema = new StructType().add("id", LongType, nullable = true, meta)
    DeltaLog.createTable(spark, t, schema, Nil, Map.empty)
    val e = refused(t, "CONSTRAINT_VIOLATION")(DeltaLog.write(spark.range(98, 102).toDF("id"), t))
    assert(e.getMessage.contains("INVARIANT id (id < 100)"), e.getMessage)
    DeltaLog.write(spark.range(0, 3).toDF("id"), t)
    assert(rows(t) === Seq("{0}", "{1}", "{2}"))
  }

  test("generated columns: computed when left out, checked when given") {
    val t = table("rules-generated")
    io.delta.tables.DeltaTable
      .create(spark)
      .location(t)
      .addColumn("id", "BIGINT")
      .addColumn(
        io.delta.tables.DeltaTable
          .columnBuilder(spark, "twice")
          .dataType("BIGINT")
          .generatedAlwaysAs("id * 2")
          .build()
      )
      .execute()
    DeltaLog.write(spark.range(0, 3).toDF("id"), t)
    DeltaLog.write(spark.sql("SELECT 5L AS id, 10L AS twice"), t)
    val e = refused(t, "CONSTRAINT_VIOLATION") {
      DeltaLog.write(spark.sql("SELECT 6L AS id, 7L AS twice"), t)
    }
    assert(e.getMessage.contains("GENERATED twice"), e.getMessage)
    assert(rows(t) === Seq("{0, 0}", "{1, 2}", "{2, 4}", "{5, 10}"))
  }

  test("a column left out is written as its default value, as delta-spark writes it") {
    val ddl = "(id BIGINT, note STRING DEFAULT 'none', n INT DEFAULT 3 + 4, plain STRING) " +
      "USING delta TBLPROPERTIES ('delta.feature.allowColumnDefaults' = 'supported')"
    val (ours, theirs) = (table("rules-default"), table("rules-default-spark"))
    Seq(ours, theirs).foreach(t => spark.sql(s"CREATE TABLE delta.`$t` $ddl"))
    val df = spark.sql("SELECT id, 'given' AS plain FROM range(2)")
    DeltaLog.write(df, ours)
    df.write.format("delta").mode("append").save(theirs)
    assert(rows(theirs) === Seq("{0, none, 7, given}", "{1, none, 7, given}"))
    assert(rows(ours) === rows(theirs))
    // a commit may not add a column with a default (spec, "Default Columns")
    val log = DeltaLog.forTable(spark, ours)
    val md = log.snapshot().metadata
    val withDefault = new MetadataBuilder().putString("CURRENT_DEFAULT", "1").build()
    val wider = md.schema.add("added", LongType, nullable = true, withDefault)
    val txn = log.startTransaction()
    txn.updateMetadata(md.copy(schemaString = wider.json))
    val e = refused(ours, "INVALID_METADATA")(txn.commit("ADD COLUMNS"))
    assert(e.getMessage.contains("added"), e.getMessage)
  }

  test("identity columns on writer version 6: values (NULL too) refused, left out generated") {
    // writer version 6 implies identityColumns ("Identity Columns"); the log is written here, with
    // no high water mark yet
    val t = table("rules-identity")
    val log = Paths.get(t, "_delta_log")
    Files.createDirectories(log)
    val field = "{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,\"metadata\":" +
      "{\"delta.identity.start\":1,\"delta.identity.step\":1," +
      "\"delta.identity.allowExplicitInsert\":false}}"
    val v = "{\"name\":\"v\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}"
    val schema = "{\"type\":\"struct\",\"fields\":[" + field + "," + v + "]}"
    val md = "{\"metaData\":{\"id\":\"7\",\"format\":{\"provider\":\"parquet\",\"options\":{}}," +
      "\"schemaString\":" + new com.fasterxml.jackson.databind.ObjectMapper()
        .writeValueAsString(schema) + ",\"partitionColumns\":[],\"configuration\":{}}}"
    val protocol = "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":6}}"
    Files.write(
      log.resolve("00000000000000000000.json"),
      (protocol + "\n" + md + "\n").getBytes("UTF-8")
    )
    val before = parquetFiles(t)
    refused(t, "IDENTITY_COLUMN_VIOLATION")(DeltaLog.write(spark.range(1, 3).toDF("id"), t))
    assert(parquetFiles(t) === before)
    // left out: 1, 2, 3 (one task), the mark at 3; a NULL given is a value given, as delta-spark
    // refuses it, and only SQL INSERT's fill of a left-out column counts as left out
    DeltaLog.write(spark.range(10, 13, 1, 1).toDF("v"), t)
    val nulls = spark.range(20, 21, 1, 1).selectExpr("CAST(NULL AS BIGINT) AS id", "id AS v")
    refused(t, "IDENTITY_COLUMN_VIOLATION")(DeltaLog.write(nulls, t))
    DeltaLog.write(spark.range(20, 21, 1, 1).toDF("v"), t)
    val snap = DeltaLog.forTable(spark, t).update()
    val rows = snap.toDF.orderBy("v").collect().map(r => (r.getLong(0), r.getLong(1))).toSeq
    assert(rows === Seq((1L, 10L), (2L, 11L), (3L, 12L), (4L, 20L)))
    assert(snap.metadata.schema("id").metadata.getLong("delta.identity.highWaterMark") === 4L)
  }

  private def partitioned(name: String): String = {
    val t = table(name)
    DeltaLog.write(
      spark
        .sql(
          "SELECT id, CASE WHEN id % 3 = 0 THEN 'a' WHEN id % 3 = 1 THEN 'b' ELSE 'c' END AS p " +
            "FROM range(12)"
        )
        .repartition(2),
      t,
      WriteOptions(partitionBy = Seq("p"))
    )
    t
  }

  test("replaceWhere replaces only the partitions it selects; rows outside it are refused") {
    val t = partitioned("rules-replace")
    val before = spark.read.format("delta").load(t).where("p <> 'a'").count()
    val r = DeltaLog.write(
      spark.sql("SELECT 100L AS id, 'a' AS p"),
      t,
      WriteOptions(mode = "overwrite", replaceWhere = Some("p = 'a'"))
    )
    assert(r.numRemovedFiles === 2 && r.numOutputRows === 1)
    val now = spark.read.format("delta").load(t)
    assert(Rows.sorted(now.where("p = 'a'")) === Seq("{100, a}"))
    assert(now.where("p <> 'a'").count() === before)
    val history = spark.sql(s"DESCRIBE HISTORY delta.`$t` LIMIT 1").collect().head
    assert(
      history.getAs[Map[String, String]]("operationParameters")("predicate") === "[\"p = 'a'\"]"
    )
    val e = refused(t, "CONSTRAINT_VIOLATION") {
      DeltaLog.write(
        spark.sql("SELECT 101L AS id, 'b' AS p"),
        t,
        WriteOptions(mode = "overwrite", replaceWhere = Some("p = 'a'"))
      )
    }
    assert(e.getMessage.contains("replaceWhere"), e.getMessage)
    refused(t, "INVALID_ARGUMENT") {
      DeltaLog.write(
        spark.sql("SELECT 1L AS id, 'a' AS p"),
        t,
        WriteOptions(mode = "overwrite", replaceWhere = Some("id > 3"))
      )
    }
    refused(t, "INVALID_ARGUMENT") {
      DeltaLog.write(
        spark.sql("SELECT 1L AS id, 'a' AS p"),
        t,
        WriteOptions(replaceWhere = Some("p = 'a'"))
      )
    }
  }

  test("delete removes the files of the partitions it selects, as delta-spark sees it") {
    val t = partitioned("rules-delete")
    val log = DeltaLog.forTable(spark, t)
    val r = log.delete("p IN ('a', 'b')")
    assert(r.committed && r.numRemovedFiles === 4 && r.numDeletedRows === Some(8L))
    assert(Rows.sorted(spark.read.format("delta").load(t).select("p").distinct()) === Seq("{c}"))
    assert(spark.read.format("delta").option("versionAsOf", r.version - 1).load(t).count() === 12)
    val history = spark.sql(s"DESCRIBE HISTORY delta.`$t` LIMIT 1").collect().head
    assert(history.getAs[String]("operation") === "DELETE")
    assert(history.getAs[Map[String, String]]("operationMetrics")("numRemovedFiles") === "4")
    val none = log.delete("p = 'zzz'")
    assert(!none.committed && none.version === r.version && none.numRemovedFiles === 0)
    // a data column on a table without deletion vectors: its files rewritten (copy-on-write)
    val kept = Rows.sorted(spark.read.format("delta").load(t).where("id <= 3"))
    val rewritten = log.delete("id > 3")
    assert(rewritten.committed && rewritten.numDeletedRows === Some(3L))
    assert(Rows.sorted(spark.read.format("delta").load(t)) === kept)
    refused(t, "INVALID_ARGUMENT")(log.delete("p = "))
    refused(t, "INVALID_ARGUMENT")(log.delete("nope > 3"))
  }

  test(
    "a transaction that read partitions a delete then removed conflicts; writes elsewhere do not"
  ) {
    val t = partitioned("rules-race")
    val log = DeltaLog.forTable(spark, t)
    // a write landing between the delete's read and its commit: replayed through the conflict
    // checks of the commit (the delete read p = 'a')
    val txn = log.startTransaction()
    txn.readFiles(org.apache.spark.sql.functions.expr("partitionValues_parsed.p = 'c'"))
    DeltaLog.write(spark.sql("SELECT 50L AS id, 'a' AS p"), t)
    assert(log.delete("p = 'b'").committed, "a delete of another partition commits")
    val e = intercept[TxlogException] {
      txn.removeFiles(
        txn
          .readFiles(org.apache.spark.sql.functions.expr("partitionValues_parsed.p = 'b'"))
          .select("path", "dataChange")
      )
      txn.commit("DELETE")
    }
    assert(e.errorClass.startsWith("CONCURRENT_"), e.getMessage)
  }
}
