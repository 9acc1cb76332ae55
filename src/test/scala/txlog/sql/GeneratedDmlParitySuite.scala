package txlog.sql

import io.delta.tables.DeltaTable

import txlog.{DeltaLog, ErrorClasses}
import txlog.scan.Rows

/** UPDATE and MERGE of tables with generated columns, by SQL and by `DeltaLog.update` / `merge`,
  * against delta-spark's on a copy of the same rows: the generated columns the statement leaves
  * unset computed again, the ones it sets checked (a value that is not the expression's an error on
  * both sides, nothing committed), with deletion vectors and copy-on-write.
  */
class GeneratedDmlParitySuite extends SqlParity with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn

  override protected def database: String = "sqlgenerated"

  /** Two copies of `(id BIGINT, v STRING)` with generated `w = upper(v)` and `n = length(v) + id`
    * and three rows, deletion vectors as `dvs` says: delta-spark's at `d` and txlog's at `t`.
    */
  private def generatedPair(name: String, dvs: Boolean): (String, String) =
    tables(name, dvs, Seq("id" -> "BIGINT", "v" -> "STRING"))(
      Seq(("w", "STRING", "upper(v)"), ("n", "BIGINT", "length(v) + id")),
      "(id, v) VALUES (1, 'a'), (2, 'bb'), (3, 'ccc')"
    )

  /** Two copies of a table of `columns` and `generated` ones (name, type, expression) holding
    * `rows` (an INSERT's column list and VALUES), created by delta-spark's builder (Spark 3.5's SQL
    * refuses generated columns on a table by path): delta-spark's at `d`, txlog's at `t`.
    */
  private def tables(name: String, dvs: Boolean, columns: Seq[(String, String)])(
      generated: Seq[(String, String, String)],
      rows: String
  ): (String, String) = {
    val dir = tempDir(name)
    val Seq(d, t) = Seq("d", "t").map(dir.resolve(_).toString)
    for (path <- Seq(d, t)) {
      val plain = columns.foldLeft(DeltaTable.create(spark).location(path)) { case (b, (n, tpe)) =>
        b.addColumn(n, tpe)
      }
      generated
        .foldLeft(plain) { case (b, (n, tpe, e)) =>
          b.addColumn(DeltaTable.columnBuilder(n).dataType(tpe).generatedAlwaysAs(e).build())
        }
        .property("delta.enableDeletionVectors", dvs.toString)
        .execute()
      spark.sql(s"INSERT INTO delta.`$path` $rows")
    }
    (d, t)
  }

  /** txlog's table at `t` has delta-spark's rows of `d`, read by delta-spark and txlog (and by
    * delta-rs at the suite's end).
    */
  private def sameAt(d: String, t: String, what: String): Unit = {
    val rows = spark.read.format("delta").load(d).collect().toSeq
    val expected = rows.map(Rows.text).sorted
    assert(Rows.sorted(spark.read.format("delta").load(t)) == expected, what)
    val snap = DeltaLog.forTable(spark, t).update()
    assert(Rows.sorted(snap.toDF) == expected, what)
    readBack.add(t, snap.version, rows)
  }

  inTurn(
    "generated columns: SQL UPDATE and MERGE compute those they leave unset, as delta-spark's"
  ) {
    for (dvs <- Seq(true, false)) {
      val (d, t) = generatedPair(s"gensql_$dvs", dvs)
      val source = "(SELECT * FROM VALUES (2L, 'q'), (4L, 'new'), (5L, 'xyz') AS s(id, v)) s"
      val statements = Seq(
        "UPDATE {t} SET v = concat(v, 'x') WHERE id = 1",
        // a generated column set explicitly to its expression's value is kept
        "UPDATE {t} SET v = 'k', w = 'K' WHERE id = 3",
        // names qualified by the target's alias; `n` reads `id`, which the statement leaves
        "UPDATE {t} AS x SET x.v = upper(x.v) WHERE x.id = 2",
        s"MERGE INTO {t} AS target USING $source ON target.id = s.id " +
          "WHEN MATCHED AND s.id = 2 THEN UPDATE SET v = s.v " +
          "WHEN NOT MATCHED AND s.id = 4 THEN INSERT (id, v) VALUES (s.id, s.v) " +
          "WHEN NOT MATCHED BY SOURCE AND target.id = 1 THEN UPDATE SET v = 'by source'",
        // only inserts: Spark writes it as an append
        s"MERGE INTO {t} AS target USING $source ON target.id = s.id " +
          "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)"
      )
      for (sql <- statements) {
        spark.sql(sql.replace("{t}", s"delta.`$d`")).collect()
        spark.sql(sql.replace("{t}", s"txlog.`$t`")).collect()
        sameAt(d, t, s"$sql (dvs: $dvs)")
      }
      // a value that is not the expression's: an error on both sides, nothing committed
      val wrong = "UPDATE {t} SET w = 'wrong' WHERE id = 1"
      intercept[Throwable](spark.sql(wrong.replace("{t}", s"delta.`$d`")).collect())
      val before = DeltaLog.forTable(spark, t).update().version
      val e = intercept[Throwable](spark.sql(wrong.replace("{t}", s"txlog.`$t`")).collect())
      val typed = txlog.testing.Causes.txlog(e)
      assert(typed.exists(_.errorClass == ErrorClasses.ConstraintViolation), e)
      assert(DeltaLog.forTable(spark, t).update().version == before)
      sameAt(d, t, wrong)
    }
  }

  inTurn("generated columns reading nested fields the statement sets: computed, as delta-spark's") {
    val (d, t) = tables(
      "gennested",
      dvs = true,
      Seq("id" -> "BIGINT", "s" -> "STRUCT<x: INT, y: STRUCT<z: STRING, w: INT>>")
    )(
      Seq(("sx", "INT", "s.x * 2"), ("sz", "STRING", "upper(s.y.z)")),
      "(id, s) VALUES (1, named_struct('x', 1, 'y', named_struct('z', 'a', 'w', 1))), " +
        "(2, named_struct('x', 2, 'y', named_struct('z', 'b', 'w', 2))), " +
        "(3, named_struct('x', 3, 'y', CAST(NULL AS STRUCT<z: STRING, w: INT>)))"
    )
    val statements = Seq(
      "UPDATE {t} SET s.x = s.x + 10 WHERE id = 1",
      "UPDATE {t} SET s.y.z = 'deep', s.x = 5 WHERE id = 2",
      // a field of a null struct: the struct made, its other fields null
      "UPDATE {t} SET s.y.z = 'made' WHERE id = 3",
      "MERGE INTO {t} AS target USING (SELECT 1L AS id, 7 AS n) src ON target.id = src.id " +
        "WHEN MATCHED THEN UPDATE SET s.x = src.n, s.y.w = src.n"
    )
    for (sql <- statements) {
      spark.sql(sql.replace("{t}", s"delta.`$d`")).collect()
      spark.sql(sql.replace("{t}", s"txlog.`$t`")).collect()
      sameAt(d, t, sql)
    }
  }

  test("generated columns: DeltaLog.update and merge compute them, as delta-spark's") {
    val (d, t) = generatedPair("genapi", dvs = true)
    val (dt, log) = (DeltaTable.forPath(spark, d), DeltaLog.forTable(spark, t))
    dt.updateExpr("id = 1", Map("v" -> "'c'"))
    assert(log.update("id = 1", Map("v" -> "'c'")).numUpdatedRows == 1)
    sameAt(d, t, "update")
    val s = spark.sql("SELECT * FROM VALUES (2L, 'zz'), (7L, 'seven') AS (id, v)").as("s")
    dt.as("target")
      .merge(s, "target.id = s.id")
      .whenMatched()
      .updateExpr(Map("v" -> "s.v"))
      .whenNotMatched()
      .insertExpr(Map("id" -> "s.id", "v" -> "s.v"))
      .execute()
    log
      .merge(s, "target.id = s.id")
      .whenMatched()
      .update(Map("v" -> "s.v"))
      .whenNotMatched()
      .insert(Map("id" -> "s.id", "v" -> "s.v"))
      .execute()
    sameAt(d, t, "merge")
  }

  deltaRsReadsEveryTable()
}
