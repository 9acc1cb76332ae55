package txlog.sql

import txlog.DeltaLog

/** SQL `MERGE INTO` on txlog tables against delta-spark's on the same rows: matched updates and
  * deletes, inserts, and the clauses on target rows the source does not match, by deletion vectors;
  * a MERGE that only inserts (an append); a source row matching two target rows (an error on both,
  * nothing written); copy-on-write on a table without deletion vectors. Expected rows and metrics
  * are delta-spark's, from the same statements in the same run; delta-spark also reads txlog's
  * table.
  */
class MergeParitySuite extends SqlParity with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn

  override protected def database: String = "sqlmerge"

  /** The counts txlog records as delta-spark does (times and byte counts left out: the two writers'
    * files differ in size; the number of files written is each writer's layout).
    */
  private val counted = Seq(
    "numTargetRowsInserted",
    "numTargetRowsUpdated",
    "numTargetRowsDeleted",
    "numTargetRowsCopied",
    "numOutputRows",
    "numTargetFilesRemoved",
    "numTargetChangeFilesAdded",
    "numTargetDeletionVectorsAdded",
    "numTargetDeletionVectorsRemoved",
    "numTargetDeletionVectorsUpdated"
  )

  /** The same MERGE on both tables: the same rows after, the same operation and counts. */
  private def sameMerge(p: SqlPair, sql: String, keys: Seq[String] = counted): Unit = {
    p.both(sql)
    p.sameRows()
    val (d, t) = (latest(p.deltaTable), latest(p.txlogTable))
    assert(t.getAs[String]("operation") == d.getAs[String]("operation"), sql)
    val expected = metricsOf(p.deltaTable, keys)
    assert(!expected.values.exists(_ == "absent"), s"$sql: delta-spark's $expected")
    assert(metricsOf(p.txlogTable, keys) == expected, sql)
  }

  private def source(name: String, rows: String): String = {
    spark.sql(s"CREATE OR REPLACE TEMPORARY VIEW $name AS SELECT * FROM VALUES $rows AS (id, v)")
    name
  }

  private def dvFiles(path: String): Seq[String] =
    new java.io.File(path).listFiles().map(_.getName).filter(_.startsWith("deletion")).toSeq

  inTurn("MERGE by deletion vectors: delta-spark's rows and counts for every kind of clause") {
    val p = pair("dv")
    p.both(create(dvs = true))
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z'), (4, 'b', 'x')")
    p.both("INSERT INTO {t} VALUES (5, 'a', 'x'), (6, 'a', 'y'), (7, 'b', 'z'), (8, 'c', 'w')")
    val s1 = source("m1", "(2L, 'u'), (3L, 'gone'), (10L, 'new'), (11L, 'new2')")
    // matched update and delete, not matched insert: rows of three files, new files written
    sameMerge(
      p,
      s"MERGE INTO {t} t USING $s1 s ON t.id = s.id " +
        "WHEN MATCHED AND s.v = 'gone' THEN DELETE " +
        "WHEN MATCHED THEN UPDATE SET v = s.v " +
        "WHEN NOT MATCHED THEN INSERT (id, part, v) VALUES (s.id, 'n', s.v)"
    )
    // the files with vectors again, and target rows the source does not match
    val s2 = source("m2", "(1L, 'again'), (5L, 'again')")
    sameMerge(
      p,
      s"MERGE INTO {t} t USING $s2 s ON t.id = s.id " +
        "WHEN MATCHED THEN UPDATE SET v = concat(t.v, s.v) " +
        "WHEN NOT MATCHED BY SOURCE AND t.part = 'b' THEN DELETE " +
        "WHEN NOT MATCHED BY SOURCE AND t.v = 'w' THEN UPDATE SET v = 'unmatched'"
    )
    // every row of a file deleted: the file removed whole; rows moved between partitions
    val s3 = source("m3", "(8L, 'x'), (6L, 'moved')")
    sameMerge(
      p,
      s"MERGE INTO {t} t USING $s3 s ON t.id = s.id " +
        "WHEN MATCHED AND t.id = 8 THEN DELETE " +
        "WHEN MATCHED THEN UPDATE SET part = 'z', v = s.v"
    )
    // nothing matched, nothing inserted: no commit on either side
    val (d, t) = (versionOf(p.deltaTable), versionOf(p.txlogTable))
    val s4 = source("m4", "(100L, 'none')")
    p.both(s"MERGE INTO {t} t USING $s4 s ON t.id = s.id WHEN MATCHED THEN DELETE")
    assert(versionOf(p.deltaTable) == d && versionOf(p.txlogTable) == t, "an empty MERGE")
    p.sameRows()
    val files = DeltaLog.forTable(spark, p.txlogPath).update().allFiles
    assert(files.where("stats_parsed.numRecords IS NULL").count() == 0)
  }

  test("a MERGE that only inserts appends the source's unmatched rows, as delta-spark's") {
    val p = pair("ins")
    p.both(create(dvs = false))
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    val s = source("mi", "(1L, 'dup'), (3L, 'new'), (4L, 'new')")
    p.both(
      s"MERGE INTO {t} t USING $s s ON t.id = s.id " +
        "WHEN NOT MATCHED THEN INSERT (id, part, v) VALUES (s.id, 'n', s.v)"
    )
    p.sameRows()
    assert(spark.table(p.txlogTable).count() == 4)
  }

  test("a source row matching two target rows fails on both sides, nothing written") {
    val p = pair("card")
    p.both(create(dvs = true))
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    val s = source("mc", "(1L, 'one'), (1L, 'two')")
    val sql = s"MERGE INTO {t} t USING $s s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v"
    val (d, t) = (versionOf(p.deltaTable), versionOf(p.txlogTable))
    val expected = intercept[Throwable](p.delta(sql).collect())
    // delta-spark's own class; txlog's is Spark's (the check is Spark's MERGE plan's)
    assert(
      expected.getMessage.contains("DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"),
      expected.getMessage
    )
    val e = intercept[Throwable](p.txlog(sql).collect())
    assert(e.getMessage.contains("MERGE_CARDINALITY_VIOLATION"), e.getMessage)
    assert(versionOf(p.deltaTable) == d && versionOf(p.txlogTable) == t)
    p.sameRows()
    assert(dvFiles(p.txlogPath).isEmpty, dvFiles(p.txlogPath).mkString(", "))
  }

  inTurn("without deletion vectors: MERGE rewrites the touched files, as delta-spark's") {
    val p = pair("cow")
    p.both(create(dvs = false))
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z'), (4, 'b', 'x')")
    p.both("INSERT INTO {t} VALUES (5, 'a', 'x'), (6, 'a', 'y'), (7, 'b', 'z'), (8, 'c', 'w')")
    // the files written differ in number (txlog writes the changed rows apart from the copied)
    val s1 = source("mw1", "(2L, 'u'), (3L, 'gone'), (10L, 'new')")
    sameMerge(
      p,
      s"MERGE INTO {t} t USING $s1 s ON t.id = s.id " +
        "WHEN MATCHED AND s.v = 'gone' THEN DELETE " +
        "WHEN MATCHED THEN UPDATE SET v = s.v " +
        "WHEN NOT MATCHED THEN INSERT (id, part, v) VALUES (s.id, 'n', s.v)"
    )
    val s2 = source("mw2", "(8L, 'x')")
    sameMerge(p, s"MERGE INTO {t} t USING $s2 s ON t.id = s.id WHEN MATCHED THEN DELETE")
    val files = DeltaLog.forTable(spark, p.txlogPath).update().allFiles
    assert(files.where("deletionVector IS NOT NULL").count() == 0)
    assert(dvFiles(p.txlogPath).isEmpty, dvFiles(p.txlogPath).mkString(", "))
  }

  /** The same MERGE with schema evolution on both tables: the same rows, counts and columns, in one
    * commit on each side.
    */
  private def sameEvolution(p: SqlPair, sql: String, keys: Seq[String] = counted): Unit = {
    val before = versionOf(p.txlogTable)
    sameMerge(p, sql, keys)
    assert(columnsOf(p.txlogTable) == columnsOf(p.deltaTable), sql)
    assert(Seq("score", "note").forall(spark.table(p.txlogTable).columns.contains), sql)
    assert(versionOf(p.txlogTable) == before + 1, s"$sql: one commit")
  }

  inTurn("MERGE with schema evolution adds the source's columns in its commit, as delta-spark's") {
    spark.sql(
      "CREATE OR REPLACE TEMPORARY VIEW evo1 AS SELECT * FROM VALUES " +
        "(2L, 'a', 'u', 20, 'two'), (9L, 'b', 'n', 90, 'nine') AS (id, part, v, score, note)"
    )
    // a source without `v`: UPDATE SET * keeps the target's, INSERT * leaves it null
    spark.sql(
      "CREATE OR REPLACE TEMPORARY VIEW evo2 AS SELECT * FROM VALUES " +
        "(1L, 'a', 11, 'one'), (7L, 'c', 70, 'seven') AS (id, part, score, note)"
    )
    val stars = "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    for (dvs <- Seq(true, false)) {
      val p = pair(s"evolve_$dvs")
      p.both(create(dvs))
      p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z')")
      withConf(MergeEvolution.AutoMerge -> "true") {
        sameEvolution(p, s"MERGE INTO {t} t USING evo1 s ON t.id = s.id $stars")
        sameEvolution(p, s"MERGE INTO {t} t USING evo2 s ON t.id = s.id $stars")
      }
      // without it, the source's columns the table lacks are not written (Spark's star)
      val n = spark.table(p.txlogTable).columns.length
      sameMerge(
        p,
        s"MERGE INTO {t} t USING (SELECT *, 1 AS more FROM evo1) s ON t.id = s.id $stars"
      )
      assert(spark.table(p.txlogTable).columns.length == n)
    }
    // only inserts: Spark's append, the columns added by the same commit
    val p = pair("evolve_ins")
    p.both(create(dvs = true))
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x')")
    withConf(MergeEvolution.AutoMerge -> "true") {
      p.both("MERGE INTO {t} t USING evo1 s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *")
    }
    p.sameRows()
    assert(columnsOf(p.txlogTable) == columnsOf(p.deltaTable))
    assert(spark.table(p.txlogTable).columns.contains("note"))
  }

  inTurn("MERGE with schema evolution adds nested struct fields, as delta-spark's") {
    // the source's struct has fields the table's lacks (`b`, and `q` one level down) and lacks
    // some it has (`c`, and `r` one level down): UPDATE SET * keeps the row's, also under a null
    // source struct, INSERT * leaves them null
    spark.sql(
      "CREATE OR REPLACE TEMPORARY VIEW evon AS SELECT * FROM VALUES " +
        "(2L, named_struct('a', 20, 'n', named_struct('p', 21, 'q', 'q2'), 'b', 'b2')), " +
        "(3L, CAST(NULL AS STRUCT<a: INT, n: STRUCT<p: INT, q: STRING>, b: STRING>)), " +
        "(4L, named_struct('a', 40, 'n', named_struct('p', 41, 'q', 'q4'), 'b', 'b4')), " +
        "(9L, named_struct('a', 90, 'n', named_struct('p', 91, 'q', 'q9'), 'b', 'b9')) AS (id, s)"
    )
    val stars = "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    for (dvs <- Seq(true, false)) {
      val p = pair(s"evolve_nested_$dvs")
      p.both(
        "CREATE TABLE {t} (id BIGINT, s STRUCT<a: INT, n: STRUCT<p: INT, r: STRING>, " +
          "c: STRING>) " +
          s"USING {p} LOCATION '{loc}' TBLPROPERTIES ('delta.enableDeletionVectors' = '$dvs')"
      )
      p.both(
        "INSERT INTO {t} VALUES " +
          "(1, named_struct('a', 1, 'n', named_struct('p', 11, 'r', 'r1'), 'c', 'x')), " +
          "(2, named_struct('a', 2, 'n', named_struct('p', 12, 'r', 'r2'), 'c', 'y')), " +
          "(3, named_struct('a', 3, 'n', named_struct('p', 13, 'r', 'r3'), 'c', 'z')), " +
          "(4, named_struct('a', 4, 'n', CAST(NULL AS STRUCT<p: INT, r: STRING>), 'c', 'w'))"
      )
      withConf(MergeEvolution.AutoMerge -> "true") {
        sameMerge(p, s"MERGE INTO {t} t USING evon s ON t.id = s.id $stars")
      }
      assert(columnsOf(p.txlogTable) == columnsOf(p.deltaTable))
      assert(spark.table(p.txlogTable).schema("s").dataType.simpleString.contains("q:string"))
    }
  }

  test("MERGE with schema evolution adds fields to array elements and map values") {
    // elements and values lacking a field the table's have: null in both clauses. A null map
    // value stays null, as delta-spark 4 keeps it (3.3 makes a struct of nulls of it: not asked
    // on Spark 3.5, whose oracle that is)
    val nullValue =
      if (spark.version.startsWith("3.")) "named_struct('k', 12, 'e', 'f2')"
      else "CAST(NULL AS STRUCT<k: INT, e: STRING>)"
    spark.sql(
      "CREATE OR REPLACE TEMPORARY VIEW evoa AS SELECT * FROM VALUES " +
        "(1L, array(named_struct('k', 10, 'e', 'e1')), map('m', named_struct('k', 11, 'e', 'f1'))), " +
        s"(2L, CAST(NULL AS ARRAY<STRUCT<k: INT, e: STRING>>), map('m', $nullValue)), " +
        "(9L, array(named_struct('k', 90, 'e', 'e9'), named_struct('k', 91, 'e', NULL)), " +
        "map('n', named_struct('k', 92, 'e', 'f9'))) AS (id, arr, mp)"
    )
    val stars = "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    val p = pair("evolve_arrays")
    p.both(
      "CREATE TABLE {t} (id BIGINT, arr ARRAY<STRUCT<k: INT, old: STRING>>, " +
        "mp MAP<STRING, STRUCT<k: INT, old: STRING>>) USING {p} LOCATION '{loc}' " +
        "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
    )
    p.both(
      "INSERT INTO {t} VALUES (1, array(named_struct('k', 1, 'old', 'o1')), " +
        "map('m', named_struct('k', 1, 'old', 'p1'))), " +
        "(2, array(named_struct('k', 2, 'old', 'o2')), map('m', named_struct('k', 2, 'old', 'p2')))"
    )
    withConf(MergeEvolution.AutoMerge -> "true") {
      sameMerge(p, s"MERGE INTO {t} t USING evoa s ON t.id = s.id $stars")
    }
    assert(columnsOf(p.txlogTable) == columnsOf(p.deltaTable))
  }

  test("MERGE WITH SCHEMA EVOLUTION (Spark 4): the statement's own words, as delta-spark's") {
    assume(spark.version.startsWith("4"), "MERGE WITH SCHEMA EVOLUTION is Spark 4's syntax")
    spark.sql(
      "CREATE OR REPLACE TEMPORARY VIEW evo3 AS SELECT * FROM VALUES " +
        "(2L, 'a', 'u', 20, 'two'), (9L, 'b', 'n', 90, 'nine') AS (id, part, v, score, note)"
    )
    val p = pair("evolve_words")
    p.both(create(dvs = true))
    p.both("INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z')")
    sameEvolution(
      p,
      "MERGE WITH SCHEMA EVOLUTION INTO {t} t USING evo3 s ON t.id = s.id " +
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )
  }

  deltaRsReadsEveryTable()
}
