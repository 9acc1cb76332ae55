package txlog.sql

import org.apache.hadoop.fs.{Path => HadoopPath}
import org.apache.spark.sql.{sources, DataFrame, Row}
import org.apache.spark.sql.execution.RowDataSourceScanExec
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.txlog.SparkErrors

import txlog.{DeltaLog, SparkSuite, TxlogException}
import txlog.scan.Rows

/** The same SQL and `writeTo` statements against delta-spark (provider `delta`, its catalog as
  * `spark_catalog`) and against txlog (provider `txlog`, [[TxlogCatalog]] as the catalog `txlog`),
  * each on fresh directories: after every statement both tables hold the same rows, and delta-spark
  * reads the txlog table by path with the same rows. Expected rows and failures are delta-spark's,
  * in the same run.
  */
class SqlParitySuite extends SparkSuite with DeltaRsReadsBack with txlog.testing.InTurn {
  override protected def turns = 9 // make test runs its inTurn tests in turn
  override def extraConf: Map[String, String] =
    Map("spark.sql.catalog.txlog" -> classOf[TxlogCatalog].getName)

  private lazy val db: String = {
    spark.sql(s"CREATE DATABASE IF NOT EXISTS sqlparity LOCATION '${tempDir("sqldb")}'")
    "sqlparity"
  }

  /** A delta-spark table and a txlog table of one name, each at a fresh directory. */
  private def pair(name: String): SqlPair = new SqlPair(spark, db, name, tempDir, readBack)

  /** Runs `sql` on both sides and checks the rows agree (and delta-spark reads txlog's table). */
  private def both(p: SqlPair, sql: String, byPath: Boolean = true): Unit = {
    p.delta(sql).collect()
    p.txlog(sql).collect()
    p.sameRows(byPath)
  }

  private def versions(path: String): Seq[Long] =
    spark
      .sql(s"DESCRIBE HISTORY delta.`$path`")
      .select("version")
      .collect()
      .map(_.getLong(0))
      .toSeq
      .sorted

  /** Runs a statement on delta-spark: false when delta-spark of this line refuses it because its
    * staged table cannot be truncated (delta-spark 3.3 on Spark 3.5 replacing a table through a V2
    * plan); the expected rows then come from the statement's query, computed by Spark.
    */
  private def oracleRuns(f: => Any): Boolean =
    try { f; true }
    catch {
      case e: org.apache.spark.sql.AnalysisException
          if org.apache.spark.SPARK_VERSION.startsWith("3.") &&
            e.getMessage.contains("does not support truncate") =>
        false
    }

  private def failure(f: => Any): Throwable = intercept[Throwable] { f; () }

  private def condition(t: Throwable): String = t match {
    case e: org.apache.spark.SparkThrowable => SparkErrors.condition(e)
    case other                              => other.getClass.getName
  }

  private val create =
    "CREATE TABLE {t} (id BIGINT, part STRING, v DOUBLE) USING {p} PARTITIONED BY (part) " +
      "LOCATION '{loc}'"

  inTurn("create, insert, overwrite of a partition, by condition and in full: same rows") {
    val p = pair("writes")
    both(p, create)
    both(p, "INSERT INTO {t} VALUES (1, 'a', 1.0), (2, 'b', 2.0), (3, null, 3.0)")
    both(p, "INSERT INTO {t} SELECT id + 10, part, v * 2 FROM {t}")
    both(p, "INSERT INTO {t} (part, id, v) VALUES ('c', 20, 0.5)")
    both(p, "INSERT OVERWRITE {t} PARTITION (part = 'a') SELECT 100, 5.0")
    both(p, "INSERT INTO {t} REPLACE WHERE part = 'b' SELECT 7, 'b', 7.0")
    both(p, "INSERT OVERWRITE {t} SELECT id, part, v FROM {t} WHERE id > 5")
    both(p, "INSERT INTO {t} SELECT id, 'd', CAST(id AS DOUBLE) FROM range(3)")
    assert(versions(p.txlogPath) == versions(p.deltaPath))
  }

  inTurn("VERSION AS OF and TIMESTAMP AS OF read the same versions; out of range fails on both") {
    val p = pair("travel")
    both(p, create)
    both(p, "INSERT INTO {t} VALUES (1, 'a', 1.0)")
    both(p, "INSERT INTO {t} VALUES (2, 'b', 2.0)")
    both(p, "INSERT OVERWRITE {t} SELECT 3, 'c', 3.0")
    def history(path: String): Seq[(Long, String)] = spark
      .sql(s"DESCRIBE HISTORY delta.`$path`")
      .selectExpr("version", "CAST(timestamp AS STRING)")
      .collect()
      .map(r => r.getLong(0) -> r.getString(1))
      .toSeq
      .sorted
    val (dh, th) = (history(p.deltaPath), history(p.txlogPath))
    assert(th.map(_._1) == dh.map(_._1))
    dh.zip(th).foreach { case ((v, dts), (_, tts)) =>
      val expected = Rows.sorted(spark.sql(s"SELECT * FROM ${p.deltaTable} VERSION AS OF $v"))
      assert(Rows.sorted(spark.sql(s"SELECT * FROM ${p.txlogTable} VERSION AS OF $v")) == expected)
      val byTime = Rows.sorted(spark.sql(s"SELECT * FROM ${p.deltaTable} TIMESTAMP AS OF '$dts'"))
      assert(byTime == expected)
      assert(
        Rows.sorted(spark.sql(s"SELECT * FROM ${p.txlogTable} TIMESTAMP AS OF '$tts'")) == expected
      )
    }
    val path = Rows.sorted(spark.sql(s"SELECT * FROM txlog.`${p.txlogPath}` VERSION AS OF 1"))
    assert(path == Rows.sorted(spark.sql(s"SELECT * FROM delta.`${p.deltaPath}` VERSION AS OF 1")))
    failure(spark.sql(s"SELECT * FROM ${p.deltaTable} VERSION AS OF 99").collect())
    val v = failure(spark.sql(s"SELECT * FROM ${p.txlogTable} VERSION AS OF 99").collect())
    assert(condition(v) == "VERSION_NOT_FOUND", v)
    val early = "TIMESTAMP AS OF '2001-01-01 00:00:00'"
    failure(spark.sql(s"SELECT * FROM ${p.deltaTable} $early").collect())
    val t = failure(spark.sql(s"SELECT * FROM ${p.txlogTable} $early").collect())
    assert(condition(t) == "TIMESTAMP_OUT_OF_RANGE", t)
  }

  inTurn("CREATE TABLE AS SELECT and CREATE OR REPLACE TABLE AS SELECT: one commit each") {
    val p = pair("ctas")
    both(
      p,
      "CREATE TABLE {t} USING {p} PARTITIONED BY (part) LOCATION '{loc}' AS " +
        "SELECT id, CAST(id % 2 AS STRING) AS part FROM range(5)"
    )
    val query = "SELECT id * 2 AS x FROM range(3)"
    val replace = s"CREATE OR REPLACE TABLE {t} USING {p} LOCATION '{loc}' AS $query"
    val oracle = oracleRuns(p.delta(replace))
    p.txlog(replace)
    if (oracle) {
      p.sameRows()
      assert(versions(p.deltaPath) == Seq(0L, 1L))
      assert(spark.table(p.txlogTable).schema == spark.table(p.deltaTable).schema)
    } else {
      assert(Rows.sorted(spark.table(p.txlogTable)) == Rows.sorted(spark.sql(query)))
      val read = spark.read.format("delta").load(p.txlogPath)
      assert(Rows.sorted(read) == Rows.sorted(spark.sql(query)))
    }
    assert(versions(p.txlogPath) == Seq(0L, 1L))
    val again = failure(p.txlog("CREATE TABLE {t} USING {p} AS SELECT 1 AS x"))
    failure(p.delta("CREATE TABLE {t} USING {p} AS SELECT 1 AS x"))
    assert(condition(again) == "TABLE_OR_VIEW_ALREADY_EXISTS", again)
    assert(versions(p.txlogPath) == Seq(0L, 1L))
  }

  inTurn("writeTo: create, append, overwrite by condition, createOrReplace") {
    val p = pair("writeto")
    def rows(from: Long): DataFrame =
      spark.range(from, from + 4).selectExpr("id", "CAST(id % 2 AS STRING) AS part")
    def each(f: (String, String, String) => Unit): Unit = {
      f(p.deltaTable, "delta", p.deltaPath)
      f(p.txlogTable, "txlog", p.txlogPath)
      p.sameRows()
    }
    each((t, provider, path) =>
      rows(0)
        .writeTo(t)
        .using(provider)
        .partitionedBy(col("part"))
        .tableProperty("location", path)
        .create()
    )
    each((t, _, _) => rows(10).writeTo(t).append())
    each((t, _, _) => rows(20).where("part = '1'").writeTo(t).overwrite(col("part") === "1"))
    each((t, _, _) => rows(30).writeTo(t).overwrite(col("part") === "0" || col("part") === "1"))
    assert(versions(p.txlogPath) == versions(p.deltaPath))
    val oracle = oracleRuns(rows(40).writeTo(p.deltaTable).using("delta").createOrReplace())
    rows(40).writeTo(p.txlogTable).using("txlog").createOrReplace()
    if (oracle) {
      p.sameRows()
      assert(versions(p.txlogPath) == versions(p.deltaPath))
    } else {
      assert(Rows.sorted(spark.table(p.txlogTable)) == Rows.sorted(rows(40)))
      assert(Rows.sorted(spark.read.format("delta").load(p.txlogPath)) == Rows.sorted(rows(40)))
    }
  }

  test("DESCRIBE TABLE and SHOW TBLPROPERTIES show the Delta schema, partitions, properties") {
    val p = pair("describe")
    both(p, create + " TBLPROPERTIES ('delta.appendOnly' = 'true')")
    def described(t: String) = spark.sql(s"DESCRIBE TABLE $t").collect().toSeq
    assert(described(p.txlogTable) == described(p.deltaTable))
    val extended = spark
      .sql(s"DESCRIBE TABLE EXTENDED ${p.txlogTable}")
      .collect()
      .map(r => r.getString(0) -> r.getString(1))
      .toMap
    assert(extended.get("Provider").contains("txlog"), extended)
    assert(extended.get("Location").exists(_.contains(p.txlogPath)), extended)
    def appendOnly(t: String) =
      spark.sql(s"SHOW TBLPROPERTIES $t ('delta.appendOnly')").collect().toSeq
    assert(appendOnly(p.txlogTable) == appendOnly(p.deltaTable))
    assert(appendOnly(p.txlogTable) == Seq(Row("delta.appendOnly", "true")))
  }

  inTurn("a managed table lives under its database; DROP TABLE removes it and its directory") {
    val p = pair("managed")
    both(p, "CREATE TABLE {t} (id INT, s STRING) USING {p}", byPath = false)
    both(p, "INSERT INTO {t} VALUES (1, 'x'), (2, null)", byPath = false)
    def location(t: String) = spark
      .sql(s"DESCRIBE TABLE EXTENDED $t")
      .collect()
      .collectFirst { case r if r.getString(0) == "Location" => r.getString(1) }
      .get
    val (dl, tl) = (location(p.deltaTable), location(p.txlogTable))
    assert(new org.apache.hadoop.fs.Path(tl).getName == s"t_managed")
    val expected = Rows.sorted(spark.read.format("delta").load(dl))
    assert(Rows.sorted(spark.read.format("delta").load(tl)) == expected)
    spark.sql(s"DROP TABLE ${p.deltaTable}")
    spark.sql(s"DROP TABLE ${p.txlogTable}")
    def exists(l: String) = new java.io.File(new java.net.URI(l)).exists()
    assert(exists(tl) == exists(dl))
    assert(!spark.catalog.tableExists(s"$db.t_managed"))
  }

  inTurn("an external table is dropped from the catalog only; a path reads as the table") {
    val p = pair("external")
    both(p, create)
    both(p, "INSERT INTO {t} VALUES (1, 'a', 1.0)")
    spark.sql(s"DROP TABLE ${p.txlogTable}")
    assert(DeltaLog.forTable(spark, p.txlogPath).snapshot().version == 1)
    val byPath = Rows.sorted(spark.sql(s"SELECT * FROM txlog.`${p.txlogPath}`"))
    assert(byPath == Rows.sorted(spark.sql(s"SELECT * FROM delta.`${p.deltaPath}`")))
    spark.sql(s"INSERT INTO txlog.`${p.txlogPath}` VALUES (2, 'b', 2.0)")
    spark.sql(s"INSERT INTO delta.`${p.deltaPath}` VALUES (2, 'b', 2.0)")
    assert(
      Rows.sorted(spark.read.format("delta").load(p.txlogPath)) ==
        Rows.sorted(spark.read.format("delta").load(p.deltaPath))
    )
    spark.sql(s"CREATE TABLE ${p.txlogTable} USING txlog LOCATION '${p.txlogPath}'")
    assert(spark.table(p.txlogTable).count() == 2)
  }

  test("an unknown table fails as on delta-spark; txlog's own refusals write nothing") {
    val d = failure(spark.sql(s"SELECT * FROM spark_catalog.$db.nope").collect())
    val t = failure(spark.sql(s"SELECT * FROM txlog.$db.nope").collect())
    assert(condition(t) == condition(d), t)
    val p = pair("refusals")
    both(p, create)
    def refused(sql: String): Unit = {
      val e = failure(p.txlog(sql).collect())
      // txlog's typed error, or Spark's refusal of what the table does not declare (its class
      // differs by line)
      assert(e.isInstanceOf[TxlogException] || e.getMessage.contains("does not support"), e)
    }
    refused("ALTER TABLE {t} ADD COLUMNS (w INT NOT NULL)")
    val options = pair("options")
    val o = failure(options.txlog(create + " OPTIONS ('x' = 'y')"))
    assert(condition(o) == "INVALID_ARGUMENT", o)
    assert(!new java.io.File(options.txlogPath, "_delta_log").exists())
    assert(DeltaLog.forTable(spark, p.txlogPath).snapshot().version == 0)
  }

  inTurn("as spark_catalog: txlog tables created and written by name, paths, others delegated") {
    val p = pair("session")
    both(p, create)
    both(p, "INSERT INTO {t} VALUES (1, 'a', 1.0), (2, 'b', 2.0)")
    spark.range(3).write.format("parquet").saveAsTable(s"$db.plain_session")
    val session = spark.newSession()
    session.conf.set("spark.sql.catalog.spark_catalog", classOf[TxlogCatalog].getName)
    val expected = Rows.sorted(spark.table(p.deltaTable))
    assert(Rows.sorted(session.table(s"$db.t_session")) == expected)
    assert(Rows.sorted(session.sql(s"SELECT * FROM txlog.`${p.txlogPath}`")) == expected)
    val v0 = session.sql(s"SELECT * FROM $db.t_session VERSION AS OF 0")
    assert(v0.count() == 0)
    session.sql(s"INSERT INTO $db.t_session VALUES (3, 'c', 3.0)")
    spark.sql(s"INSERT INTO ${p.deltaTable} VALUES (3, 'c', 3.0)")
    p.sameRows()
    assert(session.table(s"$db.plain_session").count() == 3)
    // CREATE TABLE ... USING txlog in the session catalog reaches TxlogCatalog (the txlog source
    // is a V2 provider): the same table as delta-spark's CREATE in its session catalog.
    val q = pair("made_in_session")
    val createAt = "CREATE TABLE {t} (id INT, s STRING) USING {p} LOCATION '{loc}'"
    q.delta(createAt)
    session.sql(
      createAt
        .replace("{t}", s"$db.t_made_in_session")
        .replace("{p}", "txlog")
        .replace("{loc}", q.txlogPath)
    )
    q.delta("INSERT INTO {t} VALUES (1, 'x')")
    session.sql(s"INSERT INTO $db.t_made_in_session VALUES (1, 'x')")
    q.sameRows()
    assert(versions(q.txlogPath) == versions(q.deltaPath))
    val files = "SELECT id, _metadata.file_name, _metadata.file_size FROM %s"
    val byDelta = Rows.sorted(spark.sql(files.format(s"delta.`${p.txlogPath}`")))
    assert(Rows.sorted(session.sql(files.format(s"$db.t_session"))) == byDelta)
  }

  inTurn(
    "_metadata: file fields, row_index, row tracking as delta-spark; one scan; unknown field"
  ) {
    val p = pair("metadata")
    both(p, create + " TBLPROPERTIES ('delta.enableRowTracking' = 'true')")
    both(p, "INSERT INTO {t} VALUES (1, 'a', 1.0), (2, 'b', 2.0), (3, 'b', 3.0)")
    both(p, "INSERT INTO {t} VALUES (4, 'a', 4.0)")
    val all = "file_name, file_size, file_modification_time, row_index, row_id, base_row_id, " +
      "default_row_commit_version, row_commit_version"
    def meta(t: String, fields: String = all) = Rows.sorted(
      spark.sql(s"SELECT id, ${fields.split(", ").map("_metadata." + _).mkString(", ")} FROM $t")
    )
    // the same files read through txlog's catalog (by name, by path) and by delta-spark
    assert(meta(p.txlogTable) == meta(s"delta.`${p.txlogPath}`"))
    assert(meta(s"txlog.`${p.deltaPath}`") == meta(p.deltaTable))
    val where = "WHERE _metadata.row_index > 0 AND _metadata.file_name LIKE '%.parquet'"
    assert(meta(s"${p.txlogTable} $where") == meta(s"delta.`${p.txlogPath}` $where"))
    val v1 = meta(s"${p.txlogTable} VERSION AS OF 1")
    assert(v1 == meta(s"delta.`${p.txlogPath}` VERSION AS OF 1") && v1.size == 3)
    // each side's own table of the same rows: the same row ids and commit versions
    assert(meta(p.txlogTable, "row_commit_version") == meta(p.deltaTable, "row_commit_version"))
    def ids(t: String) = Rows.sorted(spark.sql(s"SELECT _metadata.row_id FROM $t"))
    assert(ids(p.txlogTable) == ids(p.deltaTable))
    val query = spark.sql(s"SELECT id, _metadata.file_path FROM ${p.txlogTable}")
    val paths = query.collect().map(r => new HadoopPath(r.getString(1)).toUri.getPath).toSeq
    assert(paths.forall(f => f.startsWith(p.txlogPath) && f.endsWith(".parquet")), paths)
    // one scan: Spark's scan of the reader's plan, whose file scan gives the rows and _metadata
    val plan = query.queryExecution.executedPlan
    val relation = plan.collectFirst { case s: RowDataSourceScanExec => s.relation }
    val files = relation.collect { case r: SnapshotRows => r.rows.queryExecution.executedPlan }.get
    assert(plan.collectLeaves().size == 1 && files.collectLeaves().size == 1, files)
    val unknown = "SELECT _metadata.nope FROM %s"
    val d = failure(spark.sql(unknown.format(p.deltaTable)).collect())
    val t = failure(spark.sql(unknown.format(p.txlogTable)).collect())
    assert(condition(t) == condition(d), t)
  }

  test("pushed filters and columns reach txlog's reader: partition pruning, data filters") {
    val p = pair("pushdown")
    both(p, create)
    both(p, "INSERT INTO {t} VALUES (1, 'a', 1.0), (2, 'b', 2.0), (3, 'b', 3.0)")
    val query = spark.sql(s"SELECT id FROM ${p.txlogTable} WHERE part = 'b' AND v > 2.5")
    val expected = spark.sql(s"SELECT id FROM ${p.deltaTable} WHERE part = 'b' AND v > 2.5")
    assert(Rows.sorted(query) == Rows.sorted(expected))
    val scan = query.queryExecution.optimizedPlan.collectFirst {
      case r: org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation => r.scan
    }.get
    val snap = DeltaLog.forTable(spark, p.txlogPath).snapshot()
    val builder = new SnapshotScanBuilder(snap, snap.metadata.schema)
    val filters = Array[sources.Filter](sources.EqualTo("part", "b"), sources.GreaterThan("v", 2.5))
    assert(builder.pushFilters(filters).length == 2) // still checked by Spark after the scan
    assert(builder.pushedFilters().toSeq == filters.toSeq)
    builder.pruneColumns(new org.apache.spark.sql.types.StructType().add("id", "bigint"))
    val rows = builder
      .build()
      .asInstanceOf[SnapshotScan]
      .toV1TableScan[SnapshotRows](spark.sqlContext)
      .rows
    val plan = rows.queryExecution.executedPlan.toString
    assert(plan.contains("PartitionFilters: [") && plan.contains("= b)"), plan)
    assert(plan.contains("DataFilters: [") && plan.contains("> 2.5)"), plan)
    assert(rows.columns.toSeq == Seq("id"))
    assert(scan.readSchema().fieldNames.toSeq.contains("id"), scan.description())
  }

  inTurn("filters on a column named with a space and on a nested field: the same rows") {
    val p = pair("names")
    both(
      p,
      "CREATE TABLE {t} (`a b` INT, s STRUCT<x: INT, `y z`: STRING>) USING {p} " +
        "LOCATION '{loc}' TBLPROPERTIES ('delta.columnMapping.mode' = 'name')"
    )
    val values = "VALUES (1, named_struct('x', 10, 'y z', 'p')), " +
      "(2, named_struct('x', 20, 'y z', 'q')), (3, CAST(NULL AS STRUCT<x: INT, `y z`: STRING>))"
    // delta-spark 3.3 (the oracle of the Spark 3.5 line) reads the null struct of its own table
    // back as a struct of nulls; there the expected rows are the statement's values, by Spark.
    val oracle =
      if (!org.apache.spark.SPARK_VERSION.startsWith("3.")) p.deltaTable
      else {
        spark.sql(s"SELECT * FROM $values AS v(`a b`, s)").createOrReplaceTempView("names_v")
        "names_v"
      }
    if (oracle == p.deltaTable) both(p, s"INSERT INTO {t} $values")
    else {
      p.delta(s"INSERT INTO {t} $values").collect()
      p.txlog(s"INSERT INTO {t} $values").collect()
      assert(Rows.sorted(spark.table(p.txlogTable)) == Rows.sorted(spark.table(oracle)))
    }
    Seq("`a b` = 2", "`a b` IN (1, 3)", "s.x > 15", "s.`y z` = 'p'", "s IS NULL").foreach { w =>
      val sql = s"SELECT * FROM %s WHERE $w"
      val expected = Rows.sorted(spark.sql(sql.format(oracle)))
      assert(Rows.sorted(spark.sql(sql.format(p.txlogTable))) == expected, w)
      assert(expected.nonEmpty, w)
    }
    // replaceWhere on a data column (delta-spark rewrites the files it matches) is not txlog's
    // yet: refused before anything is written
    val before = versions(p.txlogPath)
    val e = failure(
      p.txlog("INSERT INTO {t} REPLACE WHERE `a b` = 1 SELECT 1, s FROM {t}")
    )
    assert(condition(e) == "INVALID_ARGUMENT", e)
    assert(versions(p.txlogPath) == before)
  }

  deltaRsReadsEveryTable()
}
