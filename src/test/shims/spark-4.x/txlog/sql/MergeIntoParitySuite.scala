package txlog.sql

import org.apache.spark.sql.functions.expr

/** `DataFrame.mergeInto` (Spark 4) on txlog tables against delta-spark's on the same rows: every
  * kind of clause, and `withSchemaEvolution()`, whose plan no parser sees (txlog's early analyzer
  * rule evolves it, [[DmlPlans]]): the same rows and columns, in one commit.
  */
class MergeIntoParitySuite extends SqlParity {

  override protected def database: String = "sqlmergeinto"

  /** The same `mergeInto` on both tables of `p` (`build` given the table's name and its last part,
    * by which the condition names the target): the same rows and columns after.
    */
  private def both(p: SqlPair)(build: (String, String) => Unit): Unit = {
    for (table <- Seq(p.deltaTable, p.txlogTable)) build(table, table.split('.').last)
    p.sameRows()
    assert(columnsOf(p.txlogTable) == columnsOf(p.deltaTable))
  }

  test("df.mergeInto with every kind of clause, as delta-spark's") {
    for (dvs <- Seq(true, false)) {
      val p = pair(s"into_$dvs")
      p.both(create(dvs))
      p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z'), (4, 'c', 'w')")
      val s = spark
        .sql(
          "SELECT * FROM VALUES (2L, 'a', 'u'), (3L, 'b', 'gone'), (9L, 'c', 'n') AS (id, part, v)"
        )
        .as("s")
      both(p) { (table, name) =>
        s.mergeInto(table, expr(s"$name.id = s.id"))
          .whenMatched(expr("s.v = 'gone'"))
          .delete()
          .whenMatched()
          .updateAll()
          .whenNotMatched()
          .insertAll()
          .whenNotMatchedBySource(expr(s"$name.id = 4"))
          .update(Map("v" -> expr("'stale'")))
          .merge()
      }
      assert(latest(p.txlogTable).getAs[String]("operation") == "MERGE")
    }
  }

  test("df.mergeInto withSchemaEvolution adds the source's columns in its commit") {
    val p = pair("into_evolve")
    p.both(create(dvs = true))
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y')")
    val s = spark
      .sql("SELECT * FROM VALUES (2L, 'a', 'u', 20), (9L, 'b', 'n', 90) AS (id, part, v, score)")
      .as("s")
    val before = versionOf(p.txlogTable)
    both(p) { (table, name) =>
      s.mergeInto(table, expr(s"$name.id = s.id"))
        .whenMatched()
        .updateAll()
        .whenNotMatched()
        .insertAll()
        .withSchemaEvolution()
        .merge()
    }
    assert(spark.table(p.txlogTable).columns.contains("score"))
    assert(versionOf(p.txlogTable) == before + 1, "one commit")
  }

  deltaRsReadsEveryTable()
}
