package txlog.write

import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.types.{IntegerType, MetadataBuilder, StructType}

import txlog.{DeltaLog, SparkSuite, TxlogException, WriteOptions}
import txlog.scan.Rows

/** Writes that delta-spark refuses are refused by txlog too, before anything is committed or any
  * data file is left behind: nested NOT NULL fields, CHAR / VARCHAR lengths, constraints added over
  * rows that break them, malformed invariants, writer features refused before the data job. Each
  * expectation is delta-spark's answer on the same input (4.4 on the default line), run here.
  */
class FailClosedWriteSuite extends SparkSuite {

  private def table(name: String): String = tempDir(name).resolve("t").toString

  private def rows(t: String): Seq[String] = Rows.sorted(spark.read.format("delta").load(t))

  /** The data files and the newest version of `t` (-1 with no log). */
  private def state(t: String): (Set[String], Long) = {
    val root = Paths.get(t)
    val files =
      if (!Files.exists(root)) Set.empty[String]
      else {
        val s = Files.walk(root)
        try s.iterator().asScala.map(_.toString).filter(_.endsWith(".parquet")).toSet
        finally s.close()
      }
    val log = root.resolve("_delta_log")
    val versions =
      if (!Files.isDirectory(log)) Nil
      else log.toFile.list().toSeq.filter(_.matches("\\d{20}\\.json")).map(_.take(20).toLong)
    (files.filterNot(_.contains("_delta_log")), if (versions.isEmpty) -1L else versions.max)
  }

  /** `write` fails with `cls`; no version and no data file are added. */
  private def refused(t: String, cls: String)(write: => Any): TxlogException = {
    val before = state(t)
    val e = intercept[TxlogException](write)
    assert(e.errorClass === cls, e.getMessage)
    assert(state(t) === before, "no new version, no new data file")
    e
  }

  /** delta-spark's error class for `write` (it must refuse). */
  private def deltaRefuses(write: => Any): String = {
    val e = intercept[Throwable](write)
    Iterator
      .iterate(e)(_.getCause)
      .takeWhile(_ != null)
      .collectFirst { case s: org.apache.spark.SparkThrowable if s.getErrorClass != null => s }
      .map(_.getErrorClass)
      .getOrElse(fail(s"no error class: $e"))
  }

  private def twin(name: String, columns: String, props: String = ""): (String, String) = {
    val (ours, theirs) = (table(s"$name-txlog"), table(s"$name-delta"))
    Seq(ours, theirs).foreach(t =>
      spark.sql(s"CREATE TABLE delta.`$t` $columns USING delta $props")
    )
    (ours, theirs)
  }

  test("a null in a NOT NULL field of a struct is refused at any depth, as delta-spark does") {
    val ddl = "(s STRUCT<a: INT NOT NULL, b: INT, t: STRUCT<c: INT NOT NULL>>, id INT)"
    val (ours, theirs) = twin("nested-null", ddl)
    val bad = Seq(
      "named_struct('a', CAST(NULL AS INT), 'b', 1, 't', named_struct('c', 1))" -> "s.a",
      "CAST(NULL AS STRUCT<a: INT, b: INT, t: STRUCT<c: INT>>)" -> "s.a",
      "named_struct('a', 1, 'b', 1, 't', named_struct('c', CAST(NULL AS INT)))" -> "s.t.c",
      "named_struct('a', 1, 'b', 1, 't', CAST(NULL AS STRUCT<c: INT>))" -> "s.t.c"
    )
    bad.foreach { case (s, path) =>
      val df = spark.sql(s"SELECT $s AS s, 1 AS id")
      val cls = deltaRefuses(df.write.format("delta").mode("append").save(theirs))
      assert(cls === "DELTA_NOT_NULL_CONSTRAINT_VIOLATED", s)
      val e = refused(ours, "CONSTRAINT_VIOLATION")(DeltaLog.write(df, ours))
      assert(e.getMessage.contains(s"NOT NULL $path"), e.getMessage)
      refused(ours, "CONSTRAINT_VIOLATION")(df.write.format("txlog").mode("append").save(ours))
    }
    val good = spark.sql(
      "SELECT named_struct('a', CAST(id AS INT), 'b', CAST(NULL AS INT), " +
        "'t', named_struct('c', 2)) AS s, CAST(id AS INT) AS id FROM range(3)"
    )
    DeltaLog.write(good, ours)
    good.write.format("delta").mode("append").save(theirs)
    assert(rows(ours) === rows(theirs))
    assert(rows(ours).size === 3)
  }

  test("OPTIMIZE rewriting a row that breaks a NOT NULL field fails, as delta-spark's does") {
    // rows written under a nullable s.a, then a metaData making s.a NOT NULL committed by hand
    // (no writer commits that change over rows that break it)
    val (ours, theirs) = (table("optimize-null-txlog"), table("optimize-null-delta"))
    spark.sql(s"CREATE TABLE delta.`$ours` (s STRUCT<a: INT>, id INT) USING delta")
    Seq(1, 2).foreach { i =>
      spark.sql(s"INSERT INTO delta.`$ours` SELECT named_struct('a', CAST(NULL AS INT)), $i")
    }
    val log = Paths.get(ours, "_delta_log")
    val first = new String(Files.readAllBytes(log.resolve("00000000000000000000.json")), "UTF-8")
    val md = first.linesIterator.find(_.startsWith("{\"metaData\"")).get
    val strict = md.replace(
      "\\\"a\\\",\\\"type\\\":\\\"integer\\\",\\\"nullable\\\":true",
      "\\\"a\\\",\\\"type\\\":\\\"integer\\\",\\\"nullable\\\":false"
    )
    assert(strict != md)
    Files.write(log.resolve("00000000000000000003.json"), (strict + "\n").getBytes("UTF-8"))
    FileUtils.copyDirectory(Paths.get(ours).toFile, Paths.get(theirs).toFile)
    val cls = deltaRefuses(spark.sql(s"OPTIMIZE delta.`$theirs`").collect())
    assert(cls === "DELTA_NOT_NULL_CONSTRAINT_VIOLATED")
    val e = refused(ours, "CONSTRAINT_VIOLATION")(DeltaLog.forTable(spark, ours).optimize())
    assert(e.getMessage.contains("NOT NULL s.a"), e.getMessage)
  }

  test("a NOT NULL inside an array or a map is refused when committed, as delta-spark does") {
    val schemas = Seq(
      "x ARRAY<STRUCT<a: INT NOT NULL>>",
      "x MAP<STRING, STRUCT<a: INT NOT NULL>>",
      "x STRUCT<y: ARRAY<STRUCT<a: INT NOT NULL>>>"
    )
    schemas.foreach { ddl =>
      val cls =
        deltaRefuses(spark.sql(s"CREATE TABLE delta.`${table("n-delta")}` ($ddl) USING delta"))
      assert(cls === "DELTA_NESTED_NOT_NULL_CONSTRAINT", ddl)
      val t = table("n-txlog")
      val schema = StructType.fromDDL(ddl)
      val e = refused(t, "INVALID_METADATA")(DeltaLog.createTable(spark, t, schema, Nil, Map.empty))
      assert(e.getMessage.contains("x."), e.getMessage)
      assert(!Files.exists(Paths.get(t, "_delta_log")), "no log directory is made")
    }
    // an array of a primitive type whose elements may not be null is accepted by both
    val fine = StructType.fromDDL("x ARRAY<INT>")
    val arr = fine.copy(fields =
      fine.fields.map(f =>
        f.copy(dataType = org.apache.spark.sql.types.ArrayType(IntegerType, containsNull = false))
      )
    )
    val t = table("n-primitive")
    DeltaLog.createTable(spark, t, arr, Nil, Map.empty)
    assert(DeltaLog.forTable(spark, t).snapshot().version === 0)
  }

  test("CHAR and VARCHAR lengths are checked as delta-spark checks them, nested fields too") {
    val (ours, theirs) = twin("varchar", "(v VARCHAR(3), c CHAR(3), s STRUCT<w: VARCHAR(2)>)")
    val bad = Seq(
      "'abcdef' AS v, 'a' AS c, named_struct('w', 'x') AS s",
      "'abc   ' AS v, 'a' AS c, named_struct('w', 'x') AS s", // trailing spaces count
      "'ab' AS v, 'abcd' AS c, named_struct('w', 'x') AS s",
      "'ab' AS v, 'ab' AS c, named_struct('w', 'xyz') AS s"
    )
    bad.foreach { sel =>
      val df = spark.sql(s"SELECT $sel")
      val cls = deltaRefuses(df.write.format("delta").mode("append").save(theirs))
      assert(cls === "DELTA_EXCEED_CHAR_VARCHAR_LIMIT", sel)
      val e = refused(ours, "CONSTRAINT_VIOLATION")(DeltaLog.write(df, ours))
      assert(e.getMessage.contains("CHAR/VARCHAR"), e.getMessage)
    }
    val good = spark.sql(
      "SELECT 'abc' AS v, 'ab' AS c, named_struct('w', 'xy') AS s UNION ALL " +
        "SELECT NULL, NULL, NULL UNION ALL " +
        "SELECT 'a', 'abc', named_struct('w', CAST(NULL AS STRING))"
    )
    DeltaLog.write(good, ours)
    good.write.format("delta").mode("append").save(theirs)
    assert(rows(ours) === rows(theirs))
  }

  test("a CHECK constraint or invariant added over rows that break it is refused") {
    val dv = "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
    val (ours, theirs) = twin("add-check", "(id INT)", dv)
    Seq(ours, theirs).foreach { t =>
      spark.sql(s"INSERT INTO delta.`$t` VALUES (-5), (-1), (2)")
      spark.sql(s"DELETE FROM delta.`$t` WHERE id = -5") // a deletion vector
    }
    // delta-spark: rows a deletion vector deleted do not count; -1 does
    spark.sql(s"ALTER TABLE delta.`$theirs` ADD CONSTRAINT above CHECK (id > -3)")
    val cls =
      deltaRefuses(spark.sql(s"ALTER TABLE delta.`$theirs` ADD CONSTRAINT pos CHECK (id > 0)"))
    assert(cls === "DELTA_NEW_CHECK_CONSTRAINT_VIOLATION")
    val log = DeltaLog.forTable(spark, ours)
    def add(props: Map[String, String]) = {
      val txn = log.startTransaction()
      val md = txn.readSnapshot.get.metadata
      txn
        .updateMetadata(md.copy(configuration = md.configuration ++ props))
        .commit("ADD CONSTRAINT")
    }
    assert(add(Map("delta.constraints.above" -> "id > -3")).committed)
    val e = refused(ours, "CONSTRAINT_VIOLATION")(add(Map("delta.constraints.pos" -> "id > 0")))
    assert(e.getMessage.contains("1 row") && e.getMessage.contains("-1"), e.getMessage)
    // an invariant on an existing column, the same way
    val txn = log.startTransaction()
    val md = txn.readSnapshot.get.metadata
    val inv = new MetadataBuilder()
      .putString("delta.invariants", """{"expression":{"expression":"id > 0"}}""")
      .build()
    val schema = StructType(md.schema.fields.map(_.copy(metadata = inv)))
    txn.updateMetadata(md.copy(schemaString = schema.json))
    val i = refused(ours, "CONSTRAINT_VIOLATION")(txn.commit("CHANGE COLUMN"))
    assert(i.getMessage.contains("INVARIANT id"), i.getMessage)
    // a constraint that does not parse: INVALID_METADATA when staged
    val bad = log.startTransaction()
    val m = bad.readSnapshot.get.metadata
    refused(ours, "INVALID_METADATA") {
      bad.updateMetadata(
        m.copy(configuration = m.configuration + ("delta.constraints.x" -> "id >"))
      )
    }
    assert(rows(ours) === rows(theirs))
  }

  test("a constraint added while another writer appends: the append conflicts, no bad row slips") {
    val t = table("add-check-race")
    DeltaLog.write(spark.range(1, 4).toDF("id"), t)
    val log = DeltaLog.forTable(spark, t)
    val txn = log.startTransaction()
    val md = txn.readSnapshot.get.metadata
    txn.updateMetadata(
      md.copy(configuration = md.configuration + ("delta.constraints.p" -> "id > 0"))
    )
    DeltaLog.write(spark.range(-1, 0).toDF("id"), t) // lands first
    val e = intercept[TxlogException](txn.commit("ADD CONSTRAINT"))
    assert(e.errorClass === "CONCURRENT_APPEND", e.getMessage)
    assert(
      !DeltaLog.forTable(spark, t).snapshot().metadata.configuration.contains("delta.constraints.p")
    )
  }

  test("a malformed invariant is INVALID_METADATA, not a JSON parser's exception") {
    val inv = new MetadataBuilder().putString("delta.invariants", "{not json").build()
    val schema = new StructType().add("id", IntegerType, nullable = true, inv)
    val t = table("bad-invariant")
    val e = refused(t, "INVALID_METADATA")(DeltaLog.createTable(spark, t, schema, Nil, Map.empty))
    assert(e.getMessage.contains("invariant of column id"), e.getMessage)
    assert(!Files.exists(Paths.get(t, "_delta_log")))
    // on a table some other writer gave one: a write refuses it before writing a file
    spark.sql(s"CREATE TABLE delta.`$t` (id INT) USING delta")
    val log = Paths.get(t, "_delta_log")
    val v0 = new String(Files.readAllBytes(log.resolve("00000000000000000000.json")), "UTF-8")
    val md = v0.linesIterator.find(_.startsWith("{\"metaData\"")).get
    val broken =
      md.replace("\\\"metadata\\\":{}", "\\\"metadata\\\":{\\\"delta.invariants\\\":\\\"{x\\\"}")
    assert(broken != md)
    Files.write(log.resolve("00000000000000000001.json"), (broken + "\n").getBytes("UTF-8"))
    refused(t, "INVALID_METADATA")(DeltaLog.write(spark.sql("SELECT 1 AS id"), t))
  }

  test("a clustered table is refused before the data job writes a file, for writes and OPTIMIZE") {
    val t = table("clustered")
    spark.sql(s"CREATE TABLE delta.`$t` (id BIGINT, p STRING) USING delta CLUSTER BY (id)")
    spark.sql(s"INSERT INTO delta.`$t` VALUES (1, 'a')")
    spark.sql(s"INSERT INTO delta.`$t` VALUES (2, 'b')")
    refused(t, "UNSUPPORTED_WRITER_FEATURES") {
      DeltaLog.write(spark.sql("SELECT 3L AS id, 'c' AS p"), t)
    }
    refused(t, "UNSUPPORTED_WRITER_FEATURES")(DeltaLog.forTable(spark, t).optimize())
    refused(t, "UNSUPPORTED_WRITER_FEATURES")(DeltaLog.forTable(spark, t).delete("p = 'a'"))
  }

  test("DELETE's metrics are delta-spark's: rows a deletion vector deleted are not counted") {
    val src = table("delete-metrics-src")
    spark.sql(
      s"CREATE TABLE delta.`$src` (id INT, p INT) USING delta PARTITIONED BY (p) " +
        "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
    )
    spark.sql(s"INSERT INTO delta.`$src` SELECT id, 1 FROM range(5)")
    spark.sql(s"INSERT INTO delta.`$src` SELECT id, 2 FROM range(3)")
    spark.sql(s"DELETE FROM delta.`$src` WHERE id = 0 AND p = 1")
    val (ours, theirs) = (table("delete-metrics-txlog"), table("delete-metrics-delta"))
    Seq(ours, theirs).foreach(t =>
      FileUtils.copyDirectory(new java.io.File(src), new java.io.File(t))
    )
    spark.sql(s"DELETE FROM delta.`$theirs` WHERE p = 1")
    val r = DeltaLog.forTable(spark, ours).delete("p = 1")
    assert(r.numDeletedRows === Some(4L))
    val timings = Set("executionTimeMs", "scanTimeMs", "rewriteTimeMs")
    def metrics(t: String) = spark
      .sql(s"DESCRIBE HISTORY delta.`$t` LIMIT 1")
      .collect()
      .head
      .getAs[Map[String, String]]("operationMetrics")
    val (m, expected) = (metrics(ours), metrics(theirs))
    assert(m.keySet === expected.keySet)
    assert(m -- timings === expected -- timings)
    assert(rows(ours) === rows(theirs))
  }

  test("an unset isolation level is reported as the level commits run at") {
    val t = table("isolation")
    DeltaLog.write(spark.range(2).toDF("id"), t)
    val snap = DeltaLog.forTable(spark, t).snapshot()
    assert(!snap.metadata.configuration.contains("delta.isolationLevel"))
    val recorded = spark
      .sql(s"DESCRIBE HISTORY delta.`$t` LIMIT 1")
      .collect()
      .head
      .getAs[String]("isolationLevel")
    assert(snap.tableProperties("delta.isolationLevel") === recorded)
  }

  test("a partition column whose name has a dot, and a column named like txlog's check columns") {
    val t = table("odd-names")
    val df = spark.sql(
      "SELECT id, CAST(id % 2 AS STRING) AS `a.b`, id * 10 AS `__txlog_check_0` FROM range(4)"
    )
    DeltaLog.write(
      df,
      t,
      WriteOptions(partitionBy = Seq("a.b"), properties = Map("delta.constraints.pos" -> "id >= 0"))
    )
    val theirs = table("odd-names-delta")
    df.write.format("delta").partitionBy("a.b").save(theirs)
    assert(rows(t) === rows(theirs))
    assert(rows(t).contains("{3, 1, 30}"), rows(t))
  }

  test("column names parquet cannot hold are refused without column mapping, as delta-spark") {
    Seq("a b", "a,b", "a=b", "a(b").foreach { n =>
      val df = spark.sql(s"SELECT 1 AS id, named_struct('$n', 2) AS s")
      val cls = deltaRefuses(df.write.format("delta").save(table("names-delta")))
      assert(cls === "DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES", n)
      val t = table("names")
      val e = refused(t, "INVALID_METADATA")(DeltaLog.write(df, t))
      assert(e.getMessage.contains(s"s.$n"), e.getMessage)
      assert(!Files.exists(Paths.get(t, "_delta_log")), "no log directory is made")
    }
    // an existing table gains no such column either (mergeSchema)
    val t = table("names-merge")
    DeltaLog.write(spark.sql("SELECT 1 AS id"), t)
    refused(t, "INVALID_METADATA") {
      DeltaLog.write(spark.sql("SELECT 2 AS id, 3 AS `a b`"), t, WriteOptions(mergeSchema = true))
    }
    // with column mapping both write it, and read the same rows
    val df = spark.sql("SELECT 1 AS id, 'x' AS `a b`")
    val cm = Map("delta.columnMapping.mode" -> "name")
    val (ours, theirs) = (table("names-cm-txlog"), table("names-cm-delta"))
    DeltaLog.write(df, ours, WriteOptions(properties = cm))
    df.write.format("delta").option("delta.columnMapping.mode", "name").save(theirs)
    assert(rows(ours) === rows(theirs))
    assert(spark.read.format("delta").load(ours).columns.toSeq === Seq("id", "a b"))
  }
}
