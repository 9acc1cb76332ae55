package txlog.sql

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.lit
import org.apache.spark.sql.txlog.SparkErrors

import txlog.{DeltaLog, SparkSuite}
import txlog.scan.Rows

/** `ALTER TABLE` against delta-spark (provider `delta`, its catalog as `spark_catalog`) and against
  * txlog ([[TxlogCatalog]] as the catalog `txlog`), each table at a fresh directory: after every
  * statement both tables hold the same rows and schema, delta-spark reads the txlog table by path
  * with the same rows, and a statement delta-spark refuses is refused by txlog too, typed, with
  * nothing written. Expected values are delta-spark's, in the same run.
  */
class SqlAlterParitySuite extends SparkSuite with DeltaRsReadsBack with txlog.testing.InTurn {
  override protected def turns = 4 // make test runs its inTurn tests in turn

  override def extraConf: Map[String, String] =
    Map("spark.sql.catalog.txlog" -> classOf[TxlogCatalog].getName)

  private lazy val db: String = {
    spark.sql(s"CREATE DATABASE IF NOT EXISTS sqlalter LOCATION '${tempDir("alterdb")}'")
    "sqlalter"
  }

  /** A delta-spark table and a txlog table of one name, each at a fresh directory. */
  private def pair(name: String): SqlPair = new SqlPair(spark, db, name, tempDir, readBack)

  private def both(p: SqlPair, sql: String, byPath: Boolean = false): Unit = {
    p.delta(sql).collect()
    p.txlog(sql).collect()
    same(p, byPath)
  }

  /** The same rows and schema (names, types, nullability, comments) on both sides; with `byPath`,
    * delta-spark reads the txlog table by path with the same rows.
    */
  private def same(p: SqlPair, byPath: Boolean = false): Unit = {
    p.sameRows(byPath)
    assert(logical(spark.table(p.txlogTable).schema) == logical(spark.table(p.deltaTable).schema))
  }

  private def logical(s: org.apache.spark.sql.types.StructType) =
    s.fields.toSeq.map(f => (f.name, f.dataType.sql, f.nullable, f.getComment()))

  private def snapshot(path: String) = DeltaLog.forTable(spark, path).update()

  private def condition(t: Throwable): String = t match {
    case e: org.apache.spark.SparkThrowable => SparkErrors.condition(e)
    case other                              => other.getClass.getName
  }

  /** `sql` fails on both sides; txlog's failure is of class `expected` (None: Spark's own refusal,
    * the class delta-spark's failure has) and writes nothing.
    */
  private def refused(p: SqlPair, sql: String, expected: Option[String]): Unit = {
    val before = snapshot(p.txlogPath).version
    val d = intercept[Throwable](p.delta(sql).collect())
    val t = intercept[Throwable](p.txlog(sql).collect())
    assert(condition(t) == expected.getOrElse(condition(d)), t)
    assert(snapshot(p.txlogPath).version == before)
    same(p)
  }

  private val create =
    "CREATE TABLE {t} (id BIGINT NOT NULL, part STRING, s STRUCT<a: INT>) USING {p} " +
      "PARTITIONED BY (part) LOCATION '{loc}'"

  inTurn("SET and UNSET TBLPROPERTIES: the same properties and protocol; bad keys refused") {
    val p = pair("props")
    both(p, create)
    both(p, "INSERT INTO {t} VALUES (1, 'a', named_struct('a', 1))")
    both(p, "ALTER TABLE {t} SET TBLPROPERTIES ('delta.appendOnly' = 'true', 'my.key' = 'v')")
    both(p, "ALTER TABLE {t} SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')")
    both(p, "ALTER TABLE {t} UNSET TBLPROPERTIES ('my.key', 'delta.appendOnly')", true)
    def state(path: String) = {
      val s = snapshot(path)
      (s.version, s.metadata.configuration, s.protocol)
    }
    assert(state(p.txlogPath) == state(p.deltaPath))
    refused(
      p,
      "ALTER TABLE {t} SET TBLPROPERTIES ('delta.noSuchProperty' = '1')",
      Some("INVALID_ARGUMENT")
    )
    refused(
      p,
      "ALTER TABLE {t} SET TBLPROPERTIES ('delta.constraints.c' = 'id > 0')",
      Some("INVALID_ARGUMENT")
    )
    refused(
      p,
      "ALTER TABLE {t} SET TBLPROPERTIES ('delta.appendOnly' = 'maybe')",
      Some("INVALID_ARGUMENT")
    )
    val history = spark.sql(s"DESCRIBE HISTORY delta.`${p.txlogPath}`").select("operation")
    assert(
      history.collect().map(_.getString(0)).toSeq.take(3) ==
        Seq("UNSET TBLPROPERTIES", "SET TBLPROPERTIES", "SET TBLPROPERTIES")
    )
  }

  inTurn("ADD COLUMNS at the end, first, after a column and nested; comments; nullability") {
    val p = pair("add")
    both(p, create)
    both(p, "INSERT INTO {t} VALUES (1, 'a', named_struct('a', 1))")
    both(p, "ALTER TABLE {t} ADD COLUMNS (v DOUBLE COMMENT 'value', w STRING)")
    both(p, "ALTER TABLE {t} ADD COLUMNS (f INT FIRST)")
    both(p, "ALTER TABLE {t} ADD COLUMN s.b STRING AFTER a")
    both(p, "INSERT INTO {t} VALUES (0, 2, 'b', named_struct('a', 2, 'b', 'x'), 2.5, 'w')")
    both(p, "ALTER TABLE {t} ALTER COLUMN v COMMENT 'the value'")
    both(p, "ALTER TABLE {t} ALTER COLUMN id DROP NOT NULL")
    both(p, "ALTER TABLE {t} ALTER COLUMN w AFTER id")
    // every column named: Spark 3.5 fills no column left out of a V2 insert
    both(p, "INSERT INTO {t} VALUES (NULL, NULL, 'w', 'c', NULL, NULL)", true)
    assert(snapshot(p.txlogPath).version == snapshot(p.deltaPath).version)
    refused(p, "ALTER TABLE {t} ALTER COLUMN v SET NOT NULL", None)
    refused(p, "ALTER TABLE {t} ADD COLUMNS (n INT NOT NULL)", Some("INVALID_METADATA"))
  }

  test("without column mapping, RENAME and DROP COLUMN are refused and nothing is written") {
    val p = pair("nomap")
    both(p, create)
    both(p, "INSERT INTO {t} VALUES (1, 'a', named_struct('a', 1))")
    refused(p, "ALTER TABLE {t} RENAME COLUMN id TO key", Some("INVALID_METADATA"))
    refused(p, "ALTER TABLE {t} DROP COLUMN s", Some("INVALID_METADATA"))
  }

  inTurn("with column mapping: add, rename, drop; delta-spark reads the renamed columns") {
    val p = pair("mapped")
    both(p, create + " TBLPROPERTIES ('delta.columnMapping.mode' = 'name')")
    both(p, "INSERT INTO {t} VALUES (1, 'a', named_struct('a', 1))")
    both(p, "ALTER TABLE {t} ADD COLUMNS (v DOUBLE, s.b STRING)")
    both(p, "INSERT INTO {t} VALUES (2, 'b', named_struct('a', 2, 'b', 'x'), 2.5)")
    both(p, "ALTER TABLE {t} RENAME COLUMN id TO key")
    both(p, "ALTER TABLE {t} RENAME COLUMN s.a TO aa")
    both(p, "ALTER TABLE {t} DROP COLUMN v")
    both(p, "INSERT INTO {t} VALUES (3, 'c', named_struct('aa', 3, 'b', 'y'))")
    both(p, "ALTER TABLE {t} DROP COLUMNS (s.b)")
    both(p, "ALTER TABLE {t} ADD COLUMNS (v DOUBLE)", true)
    val byPath = spark.read.format("delta").load(p.txlogPath)
    assert(byPath.columns.toSeq == Seq("key", "part", "s", "v"))
    assert(
      Rows.sorted(byPath.select("key", "s.aa")) ==
        Rows.sorted(spark.table(p.deltaTable).select("key", "s.aa"))
    )
    def maxId(path: String) =
      snapshot(path).metadata.configuration("delta.columnMapping.maxColumnId")
    assert(maxId(p.txlogPath) == maxId(p.deltaPath))
    refused(p, "ALTER TABLE {t} DROP COLUMN part", Some("INVALID_METADATA"))
  }

  inTurn("column mapping turned on by SET TBLPROPERTIES, then a rename") {
    val p = pair("upgrade")
    both(p, create)
    both(p, "INSERT INTO {t} VALUES (1, 'a', named_struct('a', 1))")
    both(p, "ALTER TABLE {t} SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')")
    assert(snapshot(p.txlogPath).protocol == snapshot(p.deltaPath).protocol)
    both(p, "ALTER TABLE {t} RENAME COLUMN id TO key")
    both(p, "INSERT INTO {t} VALUES (2, 'b', named_struct('a', 2))", true)
    // a partition column: its values are keyed by physical name, so no file changes
    both(p, "ALTER TABLE {t} RENAME COLUMN part TO region")
    both(p, "INSERT INTO {t} VALUES (3, 'c', named_struct('a', 3))", true)
    both(p, "DELETE FROM {t} WHERE region = 'a'", true)
    def parts(path: String) = snapshot(path).metadata.partitionColumns
    assert(parts(p.txlogPath) == Seq("region") && parts(p.deltaPath) == Seq("region"))
  }

  inTurn("ADD and DROP CONSTRAINT: delta-spark's properties, protocol, history and refusals") {
    val p = pair("checks")
    both(p, "CREATE TABLE {t} (id BIGINT, part STRING) USING {p} LOCATION '{loc}'")
    both(p, "INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    both(p, "ALTER TABLE {t} ADD CONSTRAINT Positive CHECK (id > 0 AND part <> 'z')")
    def state(path: String) = {
      val s = snapshot(path)
      (s.version, s.metadata.configuration, s.protocol)
    }
    assert(state(p.txlogPath) == state(p.deltaPath))
    val before = snapshot(p.txlogPath).version
    intercept[Throwable](p.delta("INSERT INTO {t} VALUES (-1, 'a')").collect())
    val broken = intercept[Throwable](p.txlog("INSERT INTO {t} VALUES (-1, 'a')"))
    val classes = Iterator.iterate(broken)(_.getCause).takeWhile(_ != null).map(condition).toSeq
    assert(classes.contains("CONSTRAINT_VIOLATION"), broken)
    assert(snapshot(p.txlogPath).version == before)
    // a name in use (in any case), rows breaking the condition, not boolean, no such column
    refused(p, "ALTER TABLE {t} ADD CONSTRAINT positive CHECK (id > 1)", Some("INVALID_ARGUMENT"))
    refused(p, "ALTER TABLE {t} ADD CONSTRAINT big CHECK (id > 1)", Some("CONSTRAINT_VIOLATION"))
    refused(p, "ALTER TABLE {t} ADD CONSTRAINT num CHECK (id + 1)", Some("INVALID_ARGUMENT"))
    refused(p, "ALTER TABLE {t} ADD CONSTRAINT nope CHECK (nope > 0)", Some("INVALID_ARGUMENT"))
    refused(p, "ALTER TABLE {t} DROP CONSTRAINT absent", Some("INVALID_ARGUMENT"))
    both(p, "ALTER TABLE {t} DROP CONSTRAINT IF EXISTS absent")
    both(p, "ALTER TABLE {t} ADD CONSTRAINT `odd name` CHECK (length(part) = 1)")
    both(p, "ALTER TABLE {t} DROP CONSTRAINT POSITIVE", byPath = true)
    both(p, "INSERT INTO {t} VALUES (-1, 'a')")
    assert(state(p.txlogPath) == state(p.deltaPath))
    def history(path: String) = spark
      .sql(s"DESCRIBE HISTORY delta.`$path`")
      .selectExpr("version", "operation", "operationParameters")
      .where("operation LIKE '%CONSTRAINT'")
      .collect()
      .toSeq
    assert(history(p.txlogPath) == history(p.deltaPath))
  }

  inTurn("Spark's dynamic overwrite plan: overwritePartitions() and dynamic INSERT OVERWRITE") {
    val p = pair("spark_dynamic")
    both(
      p,
      "CREATE TABLE {t} (id BIGINT, part STRING) USING {p} PARTITIONED BY (part) " +
        "LOCATION '{loc}'"
    )
    both(p, "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    val df = spark.sql("SELECT * FROM VALUES (10L, 'a'), (11L, 'd') AS v(id, part)")
    df.writeTo(p.deltaTable).overwritePartitions()
    df.writeTo(p.txlogTable).overwritePartitions()
    same(p)
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try both(p, "INSERT OVERWRITE {t} SELECT 20L, 'b'", byPath = true)
    finally spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    def operations(path: String) =
      spark.sql(s"DESCRIBE HISTORY delta.`$path`").selectExpr("version", "operation").collect()
    assert(operations(p.txlogPath).toSeq == operations(p.deltaPath).toSeq)
  }

  inTurn("dynamic partition overwrite by the write option and the session setting") {
    val p = pair("dynamic")
    both(
      p,
      "CREATE TABLE {t} (id BIGINT, part STRING) USING {p} PARTITIONED BY (part) " +
        "LOCATION '{loc}'"
    )
    both(p, "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, NULL)")
    def rows(values: String) = spark.sql(s"SELECT * FROM VALUES $values AS v(id, part)")
    def byPath(df: DataFrame, options: Map[String, String]): Unit = {
      df.write.format("delta").mode("overwrite").options(options).save(p.deltaPath)
      df.write.format("txlog").mode("overwrite").options(options).save(p.txlogPath)
      same(p, byPath = true)
    }
    byPath(rows("(10L, 'a'), (11L, NULL)"), Map("partitionOverwriteMode" -> "dynamic"))
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try byPath(rows("(20L, 'b'), (21L, 'd')"), Map.empty)
    finally spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    val df = rows("(30L, 'c')")
    df.writeTo(p.deltaTable).option("partitionOverwriteMode", "dynamic").overwrite(lit(true))
    df.writeTo(p.txlogTable).option("partitionOverwriteMode", "dynamic").overwrite(lit(true))
    same(p, byPath = true)
    assert(snapshot(p.txlogPath).version == snapshot(p.deltaPath).version)
    val bad = Map("partitionOverwriteMode" -> "sometimes")
    intercept[Throwable](
      rows("(1L, 'a')").write
        .format("delta")
        .mode("overwrite")
        .options(bad)
        .save(p.deltaPath)
    )
    val t = intercept[Throwable](
      rows("(1L, 'a')").write
        .format("txlog")
        .mode("overwrite")
        .options(bad)
        .save(p.txlogPath)
    )
    assert(condition(t) == "INVALID_ARGUMENT", t)
    same(p, byPath = true)
  }

  deltaRsReadsEveryTable()
}
