package txlog.sql

import org.apache.spark.sql.Row
import org.apache.spark.sql.txlog.SparkErrors

import txlog.scan.Rows
import txlog.{DeltaLog, TxlogException}

/** SQL `DELETE FROM` on txlog tables against delta-spark's on the same rows: by deletion vectors (a
  * condition on data columns, [[RowLevelDelete]]) and by removing whole files (partition columns
  * only). Expected rows and metrics are delta-spark's, from the same statements in the same run;
  * delta-spark also reads txlog's table back. Without deletion vectors, copy-on-write as
  * delta-spark's. Also: what txlog refuses (the change data feed on, row tracking where rows would
  * be copied or updated), typed and with nothing written.
  */
class RowLevelParitySuite extends SqlParity with txlog.testing.InTurn {
  override protected def turns = 4 // make test runs its inTurn tests in turn

  override protected def database: String = "sqldel"

  /** The counts of a DELETE's commit (times and byte counts left out: the two writers' files differ
    * in size).
    */
  private val counted = Seq(
    "numRemovedFiles",
    "numAddedFiles",
    "numDeletedRows",
    "numUpdatedRows",
    "numCopiedRows",
    "numAddedChangeFiles",
    "numDeletionVectorsAdded",
    "numDeletionVectorsRemoved",
    "numDeletionVectorsUpdated"
  )

  private def metrics(table: String): Map[String, String] = metricsOf(table, counted)

  /** The same DELETE or UPDATE on both tables: the same rows after, the same operation and counts.
    * The files an UPDATE writes its rows into are each writer's own layout (delta-spark writes one
    * per touched file, txlog one per partition a task writes): their number is left out, and with
    * `filesOfUpdates` (the statement touches files an earlier UPDATE wrote) so are the counts of
    * touched files. Files rewritten copy-on-write (`rewritten`) are packed into tasks as Spark's
    * file scan packs them, in an order among files of one size that is each writer's own: their
    * number is left out too.
    */
  private def sameChange(
      p: SqlPair,
      sql: String,
      filesOfUpdates: Boolean = false,
      rewritten: Boolean = false
  ): Unit = {
    p.both(sql)
    p.sameRows()
    val (d, t) = (latest(p.deltaTable), latest(p.txlogTable))
    assert(t.getAs[String]("operation") == d.getAs[String]("operation"), sql)
    val files = counted.filter(k => k.contains("Files") || k.contains("DeletionVectors"))
    val layout =
      if (filesOfUpdates) files.toSet
      else if (sql.startsWith("UPDATE") || rewritten) Set("numAddedFiles")
      else Set.empty[String]
    val expected = metrics(p.deltaTable) -- layout
    assert(
      expected("numDeletedRows") != "absent" || expected("numUpdatedRows") != "absent",
      s"$sql: $expected"
    )
    assert(metrics(p.txlogTable) -- layout == expected, sql)
  }

  private def condition(t: Throwable): String = t match {
    case e: TxlogException                  => e.errorClass
    case e: org.apache.spark.SparkThrowable => SparkErrors.condition(e)
    case other                              => other.getClass.getName
  }

  private def dvsOf(path: String): Seq[Row] =
    DeltaLog.forTable(spark, path).update().allFiles.where("deletionVector IS NOT NULL").collect()

  inTurn(
    "DELETE by deletion vectors: delta-spark's rows and counts, vectors merged, files dropped"
  ) {
    val p = pair("dv")
    p.both(create(dvs = true))
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z'), (4, 'b', 'x')")
    p.both("INSERT INTO {t} VALUES (5, 'a', 'x'), (6, 'a', 'y'), (7, 'a', 'z'), (8, 'b', 'w')")
    p.both("INSERT INTO {t} VALUES (9, 'c', 'q')")
    // rows of three files in two partitions: new vectors
    sameChange(p, "DELETE FROM {t} WHERE v = 'x'")
    assert(dvsOf(p.txlogPath).length == 3)
    // more rows of files with vectors: the old vectors merged in, one file left without rows
    sameChange(p, "DELETE FROM {t} WHERE id IN (2, 3, 7)")
    // every row of a file: the file removed whole
    sameChange(p, "DELETE FROM {t} WHERE v = 'q' AND id > 0")
    // no row matches: nothing committed on either side
    val (d, t) = (versionOf(p.deltaTable), versionOf(p.txlogTable))
    p.both("DELETE FROM {t} WHERE id > 100")
    assert(versionOf(p.deltaTable) == d && versionOf(p.txlogTable) == t && t == d)
    p.sameRows()
    // a condition on partition and data columns, then on a subquery
    sameChange(p, "DELETE FROM {t} WHERE part = 'a' AND v = 'y'")
    // a subquery (delta-spark refuses them in DELETE: it gets the subquery's value)
    val top = spark.table(p.deltaTable).selectExpr("max(id)").head().getLong(0)
    p.delta(s"DELETE FROM {t} WHERE id = $top").collect()
    p.txlog("DELETE FROM {t} WHERE id IN (SELECT max(id) FROM {t})").collect()
    p.sameRows()
    assert(metrics(p.txlogTable) == metrics(p.deltaTable))
    assert(versionOf(p.txlogTable) == versionOf(p.deltaTable))
  }

  inTurn(
    "UPDATE by deletion vectors: delta-spark's rows and counts, rows moved between partitions"
  ) {
    val p = pair("upd")
    p.both(create(dvs = true))
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z'), (4, 'b', 'x')")
    p.both("INSERT INTO {t} VALUES (5, 'a', 'x'), (6, 'a', 'y'), (7, 'b', 'z')")
    sameChange(p, "UPDATE {t} SET v = 'u' WHERE id % 2 = 0")
    // rows of files with vectors and of the files the last update wrote
    sameChange(
      p,
      "UPDATE {t} SET v = concat(v, '!'), id = id + 100 WHERE v IN ('u', 'z')",
      filesOfUpdates = true
    )
    // into another partition; every row of a file
    sameChange(p, "UPDATE {t} SET part = 'c' WHERE part = 'b'", filesOfUpdates = true)
    val (d, t) = (versionOf(p.deltaTable), versionOf(p.txlogTable))
    // the new files have statistics, as any file txlog writes
    val files = DeltaLog.forTable(spark, p.txlogPath).update().allFiles
    assert(files.where("stats_parsed.numRecords IS NULL").count() == 0)
    p.both("UPDATE {t} SET v = 'none' WHERE id > 1000")
    assert(versionOf(p.deltaTable) == d && versionOf(p.txlogTable) == t && t == d)
    p.sameRows()
  }

  inTurn(
    "without deletion vectors: DELETE and UPDATE rewrite the touched files, as delta-spark's"
  ) {
    val p = pair("cow")
    p.both(create(dvs = false))
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z'), (4, 'b', 'x')")
    p.both("INSERT INTO {t} VALUES (5, 'a', 'x'), (6, 'a', 'y'), (7, 'b', 'z'), (8, 'c', 'w')")
    // rows of three files in two partitions: rewritten without them, the rest copied
    sameChange(p, "DELETE FROM {t} WHERE v = 'x'", rewritten = true)
    // every row of a file: removed, nothing written for it
    sameChange(p, "DELETE FROM {t} WHERE part = 'c' AND v = 'w'", rewritten = true)
    // rows of files both writers laid out their own way: their counts left out
    sameChange(p, "UPDATE {t} SET v = 'u' WHERE id % 2 = 0", filesOfUpdates = true)
    // into another partition
    sameChange(p, "UPDATE {t} SET part = 'd' WHERE v = 'z'", filesOfUpdates = true)
    val (d, t) = (versionOf(p.deltaTable), versionOf(p.txlogTable))
    p.both("DELETE FROM {t} WHERE id > 100")
    p.both("UPDATE {t} SET v = 'none' WHERE id > 100")
    assert(versionOf(p.deltaTable) == d && versionOf(p.txlogTable) == t)
    val files = DeltaLog.forTable(spark, p.txlogPath).update().allFiles
    assert(
      files.where("deletionVector IS NOT NULL OR stats_parsed.numRecords IS NULL").count() == 0
    )
    val dvFiles = new java.io.File(p.txlogPath).listFiles().filter(_.getName.startsWith("deleti"))
    assert(dvFiles.isEmpty, dvFiles.mkString(", "))
  }

  inTurn("DELETE on partition columns removes whole files, as delta-spark's metadata-only delete") {
    val p = pair("parts")
    p.both(create(dvs = false))
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'z')")
    p.both("INSERT INTO {t} VALUES (4, 'a', 'x'), (5, 'b', 'y')")
    sameChange(p, "DELETE FROM {t} WHERE part = 'a'")
    sameChange(p, "DELETE FROM {t} WHERE part IN ('b', 'z')")
    sameChange(p, "DELETE FROM {t}")
  }

  test("a condition Spark's filters can state only in part deletes every row it matches") {
    val p = pair("ordel")
    p.both(create(dvs = true))
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y'), (7, 'c', 'z'), (9, 'c', 'w')")
    // Spark's conversion of this OR to data source filters keeps only `part IN (...)`
    sameChange(p, "DELETE FROM {t} WHERE (id % 3 = 1 OR part IN ('b', 'a'))")
    assert(Rows.sorted(spark.table(p.txlogTable).select("id")) == Seq("{9}"))
    // partition columns only, through a function: row by row, the same rows as delta-spark's
    p.both("INSERT INTO {t} VALUES (3, 'a', 'x'), (4, 'd', 'y')")
    p.both("DELETE FROM {t} WHERE upper(part) = 'D' OR part = 'c'")
    p.sameRows()
    assert(Rows.sorted(spark.table(p.txlogTable).select("id")) == Seq("{3}"))
  }

  inTurn("DELETE by deletion vectors with the change data feed on: delta-spark's table_changes") {
    val p = pair("cdfdel")
    p.both(create(dvs = true).dropRight(1) + ", 'delta.enableChangeDataFeed' = 'true')")
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z'), (4, 'b', 'x')")
    p.both("INSERT INTO {t} VALUES (5, 'a', 'x'), (6, 'c', 'w')")
    sameChange(p, "DELETE FROM {t} WHERE v = 'x'")
    // a vector merged with the file's old one, and a file left with no row
    sameChange(p, "DELETE FROM {t} WHERE id = 2 OR id = 6")
    val last = versionOf(p.txlogTable)
    assert(last == versionOf(p.deltaTable))
    def feed(path: String) = spark.sql(
      s"SELECT id, part, v, _change_type, _commit_version FROM table_changes_by_path('$path', " +
        s"1, $last)"
    )
    val expected = Rows.sorted(feed(p.deltaPath))
    assert(expected.count(_.contains("delete")) == 5, expected)
    // delta-spark's reader on txlog's table, and txlog's
    assert(Rows.sorted(feed(p.txlogPath)) == expected)
    val ours = DeltaLog.forTable(spark, p.txlogPath).changes(1L, last)
    assert(
      Rows.sorted(ours.select("id", "part", "v", "_change_type", "_commit_version")) == expected
    )
    assert(!new java.io.File(p.txlogPath, "_change_data").exists())
  }

  /** A pair of tables of six rows in three partitions, in two commits, with `property` true. */
  private def sixRows(name: String, dvs: Boolean, property: String): SqlPair = {
    val p = pair(name)
    p.both(create(dvs).dropRight(1) + s", '$property' = 'true')")
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z'), (4, 'b', 'x')")
    p.both("INSERT INTO {t} VALUES (5, 'a', 'x'), (6, 'c', 'w')")
    p
  }

  /** An UPDATE moving a row to another partition and one in place; a MERGE with every clause kind,
    * updating row 1 again (its id then read from the materialized column on a table with row
    * tracking); a DELETE; an UPDATE of a row the MERGE inserted.
    */
  private val statements = Seq(
    "UPDATE {t} SET v = concat(v, 'u'), part = if(id = 1, 'c', part) WHERE id IN (1, 3)",
    "MERGE INTO {t} t USING (SELECT * FROM VALUES (1L, 'm'), (2L, 'd'), (4L, 'm'), " +
      "(9L, 'n'), (10L, 'n') AS s(id, v)) s ON t.id = s.id WHEN MATCHED AND s.v = 'd' " +
      "THEN DELETE WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT " +
      "(id, part, v) VALUES (s.id, 'b', s.v) WHEN NOT MATCHED BY SOURCE AND t.id = 6 THEN " +
      "UPDATE SET v = 'nms'",
    "DELETE FROM {t} WHERE v = 'x'",
    "UPDATE {t} SET v = 'again' WHERE id IN (1, 9)"
  )

  inTurn("UPDATE, MERGE and DELETE with the change data feed on: delta-spark's table_changes") {
    for (dvs <- Seq(true, false)) {
      val p = sixRows(if (dvs) "cdfdml" else "cdfcow", dvs, "delta.enableChangeDataFeed")
      for (sql <- statements) {
        p.both(sql)
        p.sameRows()
        val (d, t) = (versionOf(p.deltaTable), versionOf(p.txlogTable))
        assert(d == t, sql)
        def feed(path: String) = Rows.sorted(
          spark.sql(s"SELECT id, part, v, _change_type FROM table_changes_by_path('$path', $t, $t)")
        )
        val expected = feed(p.deltaPath)
        assert(expected.nonEmpty, sql)
        assert(feed(p.txlogPath) == expected, s"$sql: delta-spark's reader of txlog's table")
        val ours = DeltaLog.forTable(spark, p.txlogPath).changes(t, t)
        assert(Rows.sorted(ours.select("id", "part", "v", "_change_type")) == expected, sql)
        val m = latest(p.txlogTable).getAs[scala.collection.Map[String, String]]("operationMetrics")
        val cdcFiles = m.getOrElse("numAddedChangeFiles", m("numTargetChangeFilesAdded")).toLong
        // a DELETE by deletion vectors writes none, as delta-spark's: its rows come from the DVs
        assert((cdcFiles == 0) == (dvs && sql.startsWith("DELETE")), s"$sql: $m")
      }
      // every change data file the log names exists, under _change_data
      val cdc = spark.read.json(s"${p.txlogPath}/_delta_log/*.json").where("cdc IS NOT NULL")
      val paths = cdc.select("cdc.path").collect().map(_.getString(0)).toSeq
      assert(paths.nonEmpty && paths.forall(_.startsWith("_change_data/")), paths)
      paths.foreach(f => assert(new java.io.File(p.txlogPath, f).isFile, f))
    }
  }

  inTurn("DML with row tracking: every row keeps its id, the changed ones move, as delta-spark's") {
    // by deletion vectors, and copy-on-write (the copied rows keep their ids and versions too)
    for (dvs <- Seq(true, false)) {
      val p = sixRows(if (dvs) "trackeddml" else "trackedcow", dvs, "delta.enableRowTracking")
      val byPath = s"delta.`${p.txlogPath}`"
      for (sql <- statements) {
        val before = (rowIds(p.deltaTable), rowIds(p.txlogTable))
        p.both(sql)
        p.sameRows()
        val version = versionOf(p.txlogTable)
        assert(versionOf(p.deltaTable) == version, sql)
        val after = rowIds(p.txlogTable)
        // the same ids read by delta-spark at txlog's path
        assert(rowIds(byPath) == after, sql)
        val changed = withClue(s"$sql (dvs $dvs)")(rowIdsKept(before._2, after, version))
        val expected =
          withClue(s"$sql (dvs $dvs)")(rowIdsKept(before._1, rowIds(p.deltaTable), version))
        assert(changed == expected, s"$sql (dvs $dvs)")
      }
    }
  }

  test("refused typed, nothing written: append-only") {
    def refused(p: SqlPair, sql: String, expected: String): Unit = {
      val before = versionOf(p.txlogTable)
      val files = DeltaLog.forTable(spark, p.txlogPath).update().allFiles.count()
      val e = intercept[Throwable](p.txlog(sql).collect())
      assert(condition(e) == expected, s"$sql: $e")
      assert(e.getMessage.contains(p.txlogPath.stripPrefix("file:")), e.getMessage)
      assert(versionOf(p.txlogTable) == before, sql)
      assert(DeltaLog.forTable(spark, p.txlogPath).update().allFiles.count() == files)
      val dvFiles = new java.io.File(p.txlogPath).listFiles().filter(_.getName.startsWith("deleti"))
      assert(dvFiles.isEmpty, dvFiles.mkString(", "))
    }
    // a table without deletion vectors is rewritten: its copied rows would lose their row ids
    val appendOnly = pair("appendonly")
    appendOnly.txlog(create(dvs = true)).collect()
    appendOnly.txlog("INSERT INTO {t} VALUES (1, 'a', 'x')").collect()
    appendOnly.txlog("ALTER TABLE {t} SET TBLPROPERTIES ('delta.appendOnly' = 'true')").collect()
    refused(appendOnly, "DELETE FROM {t} WHERE v = 'x'", "APPEND_ONLY_VIOLATION")
    refused(appendOnly, "UPDATE {t} SET v = 'y'", "APPEND_ONLY_VIOLATION")
  }

  /** The first error class in `t`'s causes: a task's error reaches the driver wrapped. */
  private def causeClass(t: Throwable): String =
    Iterator
      .iterate(t)(_.getCause)
      .takeWhile(_ != null)
      .map(condition)
      .collectFirst {
        case c if c != null && c.contains("CONSTRAINT") => c
      }
      .getOrElse(condition(t))

  test("CHECK constraints on UPDATE and MERGE: the new rows checked, as delta-spark checks them") {
    val p = pair("checked")
    p.both(create(dvs = true))
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'b', 'z')")
    p.both("ALTER TABLE {t} ADD CONSTRAINT positive CHECK (id > 0 AND v <> 'bad')")
    sameChange(p, "UPDATE {t} SET id = id + 10 WHERE part = 'b'")
    val violations = Seq(
      "UPDATE {t} SET id = -id WHERE part = 'b'",
      "MERGE INTO {t} USING (SELECT 1L AS id, 'a' AS part, 'bad' AS v) s ON {t}.id = s.id " +
        "WHEN MATCHED THEN UPDATE SET *",
      "MERGE INTO {t} USING (SELECT 1L AS id, 'a' AS part, 'w' AS v UNION ALL " +
        "SELECT -4L, 'c', 'w') s ON {t}.id = s.id WHEN MATCHED THEN DELETE " +
        "WHEN NOT MATCHED THEN INSERT *"
    )
    for (sql <- violations) {
      val before = (versionOf(p.deltaTable), versionOf(p.txlogTable))
      val d = intercept[Throwable](p.delta(sql).collect())
      val t = intercept[Throwable](p.txlog(sql).collect())
      assert(causeClass(d).startsWith("DELTA_VIOLATE_CONSTRAINT"), s"$sql: delta-spark's $d")
      assert(causeClass(t) == "CONSTRAINT_VIOLATION", s"$sql: $t")
      assert(t.getMessage.contains("positive"), t.getMessage)
      assert((versionOf(p.deltaTable), versionOf(p.txlogTable)) == before, sql)
      p.sameRows()
    }
    // a MERGE whose new rows pass
    p.both(
      "MERGE INTO {t} USING (SELECT 1L AS id, 'a' AS part, 'u' AS v UNION ALL " +
        "SELECT 5L, 'c', 'w') s ON {t}.id = s.id WHEN MATCHED THEN UPDATE SET * " +
        "WHEN NOT MATCHED THEN INSERT *"
    )
    p.sameRows()
    assert(versionOf(p.txlogTable) == versionOf(p.deltaTable))
  }

  deltaRsReadsEveryTable()
}
