package txlog.write

import java.nio.file.{Files, Paths}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.{col, lit}
import org.apache.spark.sql.types._

import txlog.{DeltaLog, SparkSuite, TxlogException, WriteOptions}
import txlog.protocol.ColumnMapping
import txlog.scan.Rows

/** `mergeSchema` and `overwriteSchema` writes against delta-spark doing the same on a copy: the
  * schemas and partitioning the log records, and the rows delta-spark reads back.
  */
class SchemaEvolutionSuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn

  private def table(name: String): String = tempDir(name).resolve("t").toString

  private def sorted(df: DataFrame): Seq[String] =
    Rows.sorted(df.select(df.columns.sorted.map(c => col(s"`$c`")): _*))

  private def delta(t: String): Seq[String] = sorted(spark.read.format("delta").load(t))

  private def meta(t: String) = DeltaLog.forTable(spark, t).snapshot().metadata

  /** `s` without column mapping metadata (physical names are random in both tables). */
  private def logical(s: StructType): StructType = StructType(s.fields.map { f =>
    val inner = f.dataType match {
      case st: StructType => logical(st)
      case other          => other
    }
    f.copy(dataType = inner, metadata = Metadata.empty)
  })

  /** Field path -> (column mapping id, physical name). */
  private def ids(s: StructType, prefix: String = ""): Map[String, (Long, String)] =
    s.fields.toSeq.flatMap { f =>
      val here = prefix + f.name -> (
        f.metadata.getLong(ColumnMapping.IdKey),
        f.metadata.getString(ColumnMapping.PhysicalNameKey)
      )
      here +: (f.dataType match {
        case st: StructType => ids(st, prefix + f.name + ".").toSeq
        case _              => Nil
      })
    }.toMap

  private def dataFiles(t: String): Long = {
    val s = Files.walk(Paths.get(t))
    try
      s.iterator()
        .asScala
        .count(p =>
          p.toString.endsWith(".parquet") && !p.toString.contains(
            "_delta_log"
          )
        )
    finally s.close()
  }

  private val first = "SELECT id, named_struct('a', id) AS s FROM range(0, 3)"
  private val wider =
    "SELECT named_struct('b', concat('b', id), 'a', id) AS s, id, id * 2 AS extra FROM range(3, 5)"

  test("mergeSchema appends a top-level column and a nested field, as delta-spark does") {
    val (ours, theirs) = (table("merge-ours"), table("merge-delta"))
    DeltaLog.write(spark.sql(first), ours)
    spark.sql(first).write.format("delta").save(theirs)
    DeltaLog.write(spark.sql(wider), ours, WriteOptions(mergeSchema = true))
    spark.sql(wider).write.format("delta").mode("append").option("mergeSchema", "true").save(theirs)
    // a column named as an existing one but for case is that column; the data lacks `s`
    val upper = "SELECT id AS ID, id AS EXTRA FROM range(5, 6)"
    spark.sql(upper).write.format("txlog").mode("append").option("mergeSchema", "true").save(ours)
    spark.sql(upper).write.format("delta").mode("append").option("mergeSchema", "true").save(theirs)
    assert(meta(ours).schema === meta(theirs).schema)
    assert(meta(ours).schema.fieldNames.toSeq === Seq("id", "s", "extra"))
    assert(delta(ours) === delta(theirs))
    assert(delta(ours).size === 6)
    // the metaData action in the commit of the data
    val v1 =
      spark.read.text(s"$ours/_delta_log/00000000000000000001.json").collect().map(_.getString(0))
    assert(v1.exists(_.startsWith("{\"metaData\"")) && v1.exists(_.startsWith("{\"add\"")))
    assert(DeltaLog.forTable(spark, ours).snapshot().version === 2)
  }

  inTurn(
    "column mapping (name): mergeSchema gives new ids, overwriteSchema fresh ones on a new type"
  ) {
    val (ours, theirs) = (table("cm-ours"), table("cm-delta"))
    for (t <- Seq(ours, theirs)) {
      spark.sql(
        s"CREATE TABLE delta.`$t` USING delta " +
          "TBLPROPERTIES ('delta.columnMapping.mode' = 'name') AS " + first
      )
    }
    DeltaLog.write(spark.sql(wider), ours, WriteOptions(mergeSchema = true))
    spark.sql(wider).write.format("delta").mode("append").option("mergeSchema", "true").save(theirs)
    assert(delta(ours) === delta(theirs))
    assert(logical(meta(ours).schema) === logical(meta(theirs).schema))
    val max = ColumnMapping.MaxIdProperty
    assert(meta(ours).configuration(max) === "5")
    assert(meta(ours).configuration(max) === meta(theirs).configuration(max))
    assert(
      ids(meta(ours).schema).map { case (k, v) => k -> v._1 } ===
        ids(meta(theirs).schema).map { case (k, v) => k -> v._1 }
    )
    // overwriteSchema: `id` becomes a string (fresh id and physical name), `s` stays
    val before = ids(meta(ours).schema)
    val over = "SELECT CAST(id AS STRING) AS id, named_struct('a', id, 'b', 'x') AS s " +
      "FROM range(7, 9)"
    for (t <- Seq(ours, theirs)) {
      spark
        .sql(over)
        .write
        .format(if (t == ours) "txlog" else "delta")
        .mode("overwrite")
        .option("overwriteSchema", "true")
        .save(t)
    }
    assert(delta(ours) === delta(theirs))
    assert(delta(ours) === Seq("{7, {7, x}}", "{8, {8, x}}"))
    val after = ids(meta(ours).schema)
    assert(
      after.map { case (k, v) => k -> v._1 } ===
        ids(meta(theirs).schema).map { case (k, v) => k -> v._1 }
    )
    assert(after("s") === before("s") && after("s.a") === before("s.a"))
    assert(after("id")._2 !== before("id")._2)
    assert(meta(ours).configuration(max) === meta(theirs).configuration(max))
  }

  inTurn("overwriteSchema changes a column's type and the partitioning, as delta-spark does") {
    val (ours, theirs) = (table("over-ours"), table("over-delta"))
    val base = "SELECT id, CAST(id % 2 AS STRING) AS p, CAST(id AS INT) AS v FROM range(0, 4)"
    DeltaLog.write(spark.sql(base), ours, WriteOptions(partitionBy = Seq("p")))
    spark.sql(base).write.format("delta").partitionBy("p").save(theirs)
    val next = "SELECT CAST(id AS STRING) AS id, CAST(id % 3 AS INT) AS q FROM range(10, 13)"
    val live = DeltaLog.forTable(spark, ours).snapshot().numFiles
    val r = DeltaLog.write(
      spark.sql(next),
      ours,
      WriteOptions(mode = "overwrite", partitionBy = Seq("q"), overwriteSchema = true)
    )
    assert(r.numRemovedFiles === live && live >= 2)
    spark
      .sql(next)
      .write
      .format("delta")
      .mode("overwrite")
      .partitionBy("q")
      .option("overwriteSchema", "true")
      .save(theirs)
    assert(meta(ours).schema === meta(theirs).schema)
    assert(meta(ours).partitionColumns === Seq("q"))
    assert(delta(ours) === delta(theirs))
    // no partitionBy: the table is no longer partitioned, in delta-spark too
    val flat = "SELECT id, CAST(id AS DOUBLE) AS q FROM range(20, 22)"
    spark
      .sql(flat)
      .write
      .format("txlog")
      .mode("overwrite")
      .option("overwriteSchema", "true")
      .save(ours)
    spark
      .sql(flat)
      .write
      .format("delta")
      .mode("overwrite")
      .option("overwriteSchema", "true")
      .save(theirs)
    assert(meta(ours).partitionColumns === meta(theirs).partitionColumns)
    assert(meta(ours).schema === meta(theirs).schema)
    assert(delta(ours) === delta(theirs))
  }

  test("refusals: no file written, no new version") {
    val t = table("refused")
    DeltaLog.write(
      spark.sql("SELECT id, CAST(id AS STRING) AS p FROM range(0, 2)"),
      t,
      WriteOptions(partitionBy = Seq("p"))
    )
    val (files, version) = (dataFiles(t), DeltaLog.forTable(spark, t).snapshot().version)
    def refused(errorClass: String, named: String)(write: => Any): Unit = {
      val e = intercept[TxlogException](write)
      assert(e.errorClass === errorClass, e.getMessage)
      assert(e.getMessage.contains(named), e.getMessage)
      assert(DeltaLog.forTable(spark, t).update().version === version)
      assert(dataFiles(t) === files)
    }
    val typed = spark.sql("SELECT CAST(id AS STRING) AS id, 'x' AS p, id AS n FROM range(1)")
    refused("SCHEMA_MISMATCH", "id")(
      DeltaLog.write(typed, t, WriteOptions(mergeSchema = true))
    )
    refused("SCHEMA_MISMATCH", "id")(
      DeltaLog.write(typed, t, WriteOptions(mode = "overwrite", mergeSchema = true))
    )
    refused("INVALID_ARGUMENT", "overwriteSchema")(
      DeltaLog.write(typed, t, WriteOptions(overwriteSchema = true))
    )
    refused("INVALID_ARGUMENT", "overwriteSchema")(
      DeltaLog.write(
        typed,
        t,
        WriteOptions(mode = "overwrite", replaceWhere = Some("p = 'x'"), overwriteSchema = true)
      )
    )
    refused("UNSUPPORTED_WRITER_FEATURES", "variantType")(
      DeltaLog.write(
        spark.sql("SELECT 1L AS id, 'x' AS p, parse_json('1') AS j"),
        t,
        WriteOptions(mergeSchema = true)
      )
    )
    // a column without a type (a NULL literal): delta-spark records it as void, txlog asks a cast
    refused("SCHEMA_MISMATCH", "Column n has no type")(
      DeltaLog.write(
        spark.sql("SELECT 1L AS id, 'x' AS p, NULL AS n"),
        t,
        WriteOptions(mergeSchema = true)
      )
    )
    refused("SCHEMA_MISMATCH", "Column s.b has no type")(
      DeltaLog.write(
        spark.sql("SELECT 1L AS id, 'x' AS p, named_struct('a', 1, 'b', NULL) AS s"),
        t,
        WriteOptions(mode = "overwrite", overwriteSchema = true)
      )
    )
    refused("INVALID_ARGUMENT", "mergeSchema")(
      typed.write.format("txlog").mode("append").option("mergeSchema", "yes").save(t)
    )
    val fresh = table("void-new")
    val e = intercept[TxlogException](DeltaLog.write(spark.sql("SELECT NULL AS n"), fresh))
    assert(e.errorClass === "SCHEMA_MISMATCH" && e.getMessage.contains("Column n has no type"))
    assert(!Files.exists(Paths.get(fresh)), "nothing written for a new table")
    // a commit marked as replacing the table must remove every file of it
    val txn = DeltaLog.forTable(spark, t).startTransaction()
    val md = txn.readSnapshot.get.metadata
    val retyped = StructType(md.schema.fields.map {
      case f if f.name == "id" => f.copy(dataType = StringType)
      case f                   => f
    })
    txn.updateMetadata(md.copy(schemaString = retyped.json)).replacingTable()
    txn.removeFiles(
      txn.readFiles().where("partitionValues['p'] = '0'").withColumn("dataChange", lit(true))
    )
    refused("INVALID_COMMIT_ACTIONS", "removes 1 of the 2 files")(txn.commit())
  }

  test("overwriteSchema keeps CHECK constraints: one naming a dropped column is refused") {
    val t = table("constrained")
    spark.sql("SELECT id, CAST(id AS STRING) AS s FROM range(1, 3)").write.format("delta").save(t)
    spark.sql(s"ALTER TABLE delta.`$t` ADD CONSTRAINT positive CHECK (id > 0)")
    val (files, version) = (dataFiles(t), DeltaLog.forTable(spark, t).snapshot().version)
    val dropped = spark.sql("SELECT 'a' AS s")
    val replace = WriteOptions(mode = "overwrite", overwriteSchema = true)
    val e = intercept[TxlogException](DeltaLog.write(dropped, t, replace))
    assert(e.errorClass === "INVALID_METADATA", e.getMessage)
    assert(e.getMessage.contains("CHECK positive (id > 0)"), e.getMessage)
    assert(DeltaLog.forTable(spark, t).update().version === version)
    assert(dataFiles(t) === files)
    // delta-spark refuses the same write, and writes nothing either
    intercept[Exception](
      dropped.write.format("delta").mode("overwrite").option("overwriteSchema", "true").save(t)
    )
    assert(DeltaLog.forTable(spark, t).update().version === version)
    // a new schema keeping the column is written, and still checked
    DeltaLog.write(spark.sql("SELECT 5L AS id, 1.5D AS x"), t, replace)
    assert(delta(t) === Seq("{5, 1.5}"))
    assert(meta(t).configuration.get("delta.constraints.positive") === Some("id > 0"))
    val broken = intercept[TxlogException](
      DeltaLog.write(spark.sql("SELECT -1L AS id, 2.5D AS x"), t, replace)
    )
    assert(broken.errorClass === "CONSTRAINT_VIOLATION", broken.getMessage)
    assert(delta(t) === Seq("{5, 1.5}"))
  }

}
