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

  deltaRsReadsEveryTable()
}
