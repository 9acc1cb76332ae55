package txlog.sql

import io.delta.tables.DeltaTable
import org.apache.spark.sql.DataFrame

import txlog.{DeltaLog, ErrorClasses, TxlogException}

/** `DeltaLog.update` and `DeltaLog.merge` against delta-spark's `DeltaTable.updateExpr` and
  * `DeltaTable.merge` on the same rows: the rows after each call, the commit's operation and
  * counts, and the merge result's counts are delta-spark's from the same run; bad arguments are
  * typed errors that commit nothing.
  */
class DmlApiParitySuite extends SqlParity with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn

  override protected def database: String = "sqlapi"

  private val updateCounts = Seq(
    "numUpdatedRows",
    "numRemovedFiles",
    "numCopiedRows",
    "numDeletionVectorsAdded",
    "numDeletionVectorsRemoved",
    "numDeletionVectorsUpdated"
  )

  private def rows(values: String): DataFrame =
    spark.sql(s"SELECT * FROM VALUES $values AS (id, part, v)")

  private def invalid(arg: String)(body: => Any): Unit = {
    val e = intercept[TxlogException](body)
    assert(e.errorClass == ErrorClasses.InvalidArgument, e.getMessage)
    assert(e.getMessage.contains(s"'$arg'"), e.getMessage)
  }

  /** `DeltaLog.update` calls on a table with deletion vectors as `dvs` says. */
  private def updateParity(dvs: Boolean): Unit = {
    {
      val p = pair(s"upd_$dvs")
      p.both(create(dvs))
      p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z'), (4, 'b', 'x')")
      p.both("INSERT INTO {t} VALUES (5, 'a', 'x'), (6, 'c', 'w')")
      val dt = DeltaTable.forPath(spark, p.deltaPath)
      val log = DeltaLog.forTable(spark, p.txlogPath)
      // An UPDATE of every row touches every file, whose number is each writer's layout after
      // the UPDATEs before it (delta-spark writes a file per touched file, txlog one per
      // partition a task writes): there the file counts are txlog's live files, and the rows
      // and the rows' count delta-spark's.
      def same(condition: Option[String], set: Map[String, String]): Unit = {
        val keys = if (condition.isEmpty) Seq("numUpdatedRows") else updateCounts
        val live = log.update().numFiles
        condition.fold(dt.updateExpr(set))(dt.updateExpr(_, set))
        val r = condition.fold(log.update(set))(log.update(_, set))
        p.sameRows()
        assert(r.committed && r.version == versionOf(p.txlogTable), r)
        assert(latest(p.txlogTable).getAs[String]("operation") == "UPDATE")
        val expected = metricsOf(p.deltaTable, keys)
        assert(metricsOf(p.txlogTable, keys) == expected, s"$condition $set")
        assert(r.numUpdatedRows == expected("numUpdatedRows").toLong, r)
        val removed =
          if (condition.isEmpty) live
          else metricsOf(p.deltaTable, Seq("numRemovedFiles"))("numRemovedFiles").toLong
        assert(r.numRemovedFiles == removed, r)
        assert(r.numAddedFiles > 0, r)
      }
      same(Some("v = 'x'"), Map("v" -> "concat(v, '!')"))
      // rows moved to another partition
      same(Some("id >= 5 AND part = 'c'"), Map("part" -> "'moved'", "v" -> "upper(v)"))
      same(None, Map("v" -> "v || '?'"))
      // no row matches: no commit on either side
      val before = (versionOf(p.deltaTable), versionOf(p.txlogTable))
      dt.updateExpr("id = 100", Map("v" -> "'none'"))
      val none = log.update("id = 100", Map("v" -> "'none'"))
      assert(!none.committed && none.version == before._2 && none.numUpdatedRows == 0, none)
      assert((versionOf(p.deltaTable), versionOf(p.txlogTable)) == before)
    }
  }

  test("DeltaLog.update of a nested field, as delta-spark's") {
    val p = pair("nested")
    p.both(
      "CREATE TABLE {t} (id BIGINT, s STRUCT<a: INT, b: STRING>) USING {p} LOCATION '{loc}' " +
        "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
    )
    p.both(
      "INSERT INTO {t} VALUES (1, named_struct('a', 1, 'b', 'x')), " +
        "(2, named_struct('a', 2, 'b', 'y'))"
    )
    DeltaTable.forPath(spark, p.deltaPath).updateExpr("id = 2", Map("s.a" -> "s.a * 10"))
    val r = DeltaLog.forTable(spark, p.txlogPath).update("id = 2", Map("s.a" -> "s.a * 10"))
    p.sameRows()
    assert(r.numUpdatedRows == 1, r)
    assert(spark.table(p.txlogTable).where("s.a = 20 AND s.b = 'y'").count() == 1)
  }

  /** `DeltaLog.merge` calls on a table with deletion vectors as `dvs` says. */
  private def mergeParity(dvs: Boolean): Unit = {
    {
      val p = pair(s"merge_$dvs")
      p.both(create(dvs))
      p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z'), (4, 'b', 'x')")
      p.both("INSERT INTO {t} VALUES (5, 'a', 'x'), (6, 'c', 'w')")
      val dt = DeltaTable.forPath(spark, p.deltaPath).as("target")
      val log = DeltaLog.forTable(spark, p.txlogPath)
      // delta-spark's counts from its commit (its execute() returns them only from 4.x on)
      def same(delta: => Any, ours: => txlog.MergeResult): Unit = {
        delta
        val r = ours
        p.sameRows()
        val m = metricsOf(
          p.deltaTable,
          Seq("Updated", "Deleted", "Inserted").map(k => s"numTargetRows$k")
        )
        val expected = m.toSeq.sortBy(_._1).map(_._2.toLong)
        val got = Seq(r.numDeletedRows, r.numInsertedRows, r.numUpdatedRows)
        assert(got == expected, s"$r, delta-spark's $m")
        assert(r.numAffectedRows == expected.sum, r)
        assert(r.committed && r.version == versionOf(p.txlogTable), r)
      }
      val s1 = rows("(2L, 'a', 'u'), (3L, 'b', 'gone'), (10L, 'n', 'new')").as("s")
      val on = "target.id = s.id"
      same(
        dt.merge(s1, on)
          .whenMatched("s.v = 'gone'")
          .delete()
          .whenMatched()
          .updateExpr(Map("v" -> "s.v"))
          .whenNotMatched()
          .insertExpr(Map("id" -> "s.id", "part" -> "'n'", "v" -> "s.v"))
          .whenNotMatchedBySource("target.part = 'c'")
          .updateExpr(Map("v" -> "'stale'"))
          .execute(),
        log
          .merge(s1, on)
          .whenMatched("s.v = 'gone'")
          .delete()
          .whenMatched()
          .update(Map("v" -> "s.v"))
          .whenNotMatched()
          .insert(Map("id" -> "s.id", "part" -> "'n'", "v" -> "s.v"))
          .whenNotMatchedBySource("target.part = 'c'")
          .update(Map("v" -> "'stale'"))
          .execute()
      )
      // UPDATE SET * and INSERT *, rows the source does not match deleted; the target aliased
      val s2 = rows("(1L, 'a', 'all'), (11L, 'z', 'ins')").as("s")
      same(
        DeltaTable
          .forPath(spark, p.deltaPath)
          .as("t")
          .merge(s2, "t.id = s.id")
          .whenMatched()
          .updateAll()
          .whenNotMatched()
          .insertAll()
          .whenNotMatchedBySource("t.part = 'b'")
          .delete()
          .execute(),
        log
          .merge(s2, "t.id = s.id", targetAlias = "t")
          .whenMatched()
          .updateAll()
          .whenNotMatched()
          .insertAll()
          .whenNotMatchedBySource("t.part = 'b'")
          .delete()
          .execute()
      )
      // inserts only: an append, a WRITE commit on both sides
      val s3 = rows("(1L, 'a', 'dup'), (20L, 'n', 'x'), (21L, 'n', 'y')").as("s")
      same(
        dt.merge(s3, on).whenNotMatched().insertAll().execute(),
        log.merge(s3, on).whenNotMatched().insertAll().execute()
      )
      assert(latest(p.txlogTable).getAs[String]("operation") == "WRITE")
      // nothing changes: no commit
      val before = versionOf(p.txlogTable)
      val none = log.merge(rows("(99L, 'q', 'q')").as("s"), on).whenMatched().delete().execute()
      assert(!none.committed && none.version == before && none.numAffectedRows == 0, none)
      assert(versionOf(p.txlogTable) == before)
    }
  }

  inTurn("DeltaLog.update by deletion vectors: delta-spark's updateExpr rows and counts") {
    updateParity(dvs = true)
  }

  inTurn("DeltaLog.update copy-on-write: delta-spark's updateExpr rows and counts") {
    updateParity(dvs = false)
  }

  inTurn("DeltaLog.merge copy-on-write: delta-spark's rows and counts, every kind of clause") {
    mergeParity(dvs = false)
  }

  inTurn(
    "DeltaLog.merge by deletion vectors: delta-spark's rows and counts, every kind of clause"
  ) {
    mergeParity(dvs = true)
  }

  test("bad arguments are INVALID_ARGUMENT naming them, and commit nothing") {
    val p = pair("bad")
    p.both(create(dvs = true))
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    val log = DeltaLog.forTable(spark, p.txlogPath)
    val before = versionOf(p.txlogTable)
    invalid("condition")(log.update("id = ", Map("v" -> "'a'")))
    // an expression cannot reach into the statement around it
    invalid("condition")(log.update("id = 1) OR (1 = 1", Map("v" -> "'a'")))
    invalid("set")(log.update("id = 1", Map("v" -> "'a' WHERE id = 2")))
    invalid("set")(log.update("id = 1", Map.empty[String, String]))
    invalid("update")(log.update("id = 1", Map("nope" -> "'a'")))
    val s = rows("(1L, 'a', 'u')").as("s")
    invalid("merge")(log.merge(s, "target.id = s.id").execute())
    invalid("target_alias")(log.merge(s, "t.id = s.id", "t.u").whenMatched().delete().execute())
    invalid("matched_update.condition")(
      log.merge(s, "target.id = s.id").whenMatched("s.v =").updateAll().execute()
    )
    invalid("merge")(log.merge(s, "target.id = s.nope").whenMatched().delete().execute())
    // the Python facade's clauses: a key it does not know, a delete given columns to set
    val facade = txlog.python.PythonFacade
    invalid("extra")(
      facade.merge(
        log,
        s,
        "target.id = s.id",
        "target",
        """[{"kind":
      "matched_delete", "extra": "x"}]""",
        false
      )
    )
    invalid("matched_delete.set")(
      facade.merge(
        log,
        s,
        "target.id = s.id",
        "target",
        """[{"kind":
      "matched_delete", "set": {"v": "'x'"}}]""",
        false
      )
    )
    // of each kind of clause only the last may go without a condition (Spark's rule)
    invalid("merge")(
      log.merge(s, "target.id = s.id").whenMatched().delete().whenMatched().updateAll().execute()
    )
    // a source row matching two target rows: Spark's error, nothing committed
    val twice = rows("(1L, 'a', 'one'), (1L, 'a', 'two')").as("s")
    val e = intercept[Throwable](
      log.merge(twice, "target.id = s.id").whenMatched().update(Map("v" -> "s.v")).execute()
    )
    assert(e.getMessage.contains("MERGE_CARDINALITY_VIOLATION"), e.getMessage)
    assert(versionOf(p.txlogTable) == before)
    p.sameRows()
    // a comment ends with its line: it cannot hide the statement's text after the condition
    assert(log.update("id = 1 -- the first row", Map("v" -> "'c'")).numUpdatedRows == 1)
    assert(spark.table(p.txlogTable).where("v = 'c'").count() == 1)
  }

  test("DeltaLog.merge withSchemaEvolution: delta-spark's withSchemaEvolution rows and columns") {
    for (dvs <- Seq(true, false)) {
      val p = pair(s"evolve_$dvs")
      p.both(create(dvs))
      p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z')")
      val s = spark
        .sql(
          "SELECT * FROM VALUES (2L, 'a', 'u', 20), (9L, 'b', 'n', 90) AS (id, part, v, score)"
        )
        .as("s")
      DeltaTable
        .forPath(spark, p.deltaPath)
        .as("target")
        .merge(s, "target.id = s.id")
        .withSchemaEvolution()
        .whenMatched()
        .updateAll()
        .whenNotMatched()
        .insertAll()
        .execute()
      val before = versionOf(p.txlogTable)
      val r = DeltaLog
        .forTable(spark, p.txlogPath)
        .merge(s, "target.id = s.id")
        .withSchemaEvolution()
        .whenMatched()
        .updateAll()
        .whenNotMatched()
        .insertAll()
        .execute()
      assert(r.committed && r.version == before + 1, r)
      assert((r.numUpdatedRows, r.numInsertedRows) == ((1L, 1L)), r)
      p.sameRows()
      val names = columnsOf(p.txlogTable)
      assert(names == columnsOf(p.deltaTable))
      assert(names.map(_._1).contains("score"), names)
      // clauses that name their columns: nothing added, on either side
      val more = spark.sql("SELECT 3L AS id, 'b' AS part, 'w' AS v, 1 AS extra").as("s")
      DeltaTable
        .forPath(spark, p.deltaPath)
        .as("target")
        .merge(more, "target.id = s.id")
        .withSchemaEvolution()
        .whenMatched()
        .updateExpr(Map("v" -> "s.v"))
        .execute()
      DeltaLog
        .forTable(spark, p.txlogPath)
        .merge(more, "target.id = s.id")
        .withSchemaEvolution()
        .whenMatched()
        .update(Map("v" -> "s.v"))
        .execute()
      p.sameRows()
      val after = columnsOf(p.txlogTable)
      assert(after == names)
      assert(after == columnsOf(p.deltaTable))
    }
  }

  deltaRsReadsEveryTable()
}
