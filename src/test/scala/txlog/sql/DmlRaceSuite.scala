package txlog.sql

import txlog.{DeltaLog, SparkSuite}
import txlog.scan.Rows
import txlog.sql.DmlStatements.Clause

/** txlog's MERGE racing another writer on one table: the other writer's commit lands after the
  * MERGE's tasks wrote their deletion vectors and rows and before its commit
  * (`DmlStatements.merge`'s `beforeCommit`). delta-spark's OPTIMIZE, txlog's OPTIMIZE and
  * delta-spark's DELETE change the file the MERGE touched: the MERGE fails as a conflict, nothing
  * of it lands, no deleted row comes back, and run again it lands once. A blind append does not
  * conflict (WriteSerializable, as delta-spark's ConflictChecker): both land. The rows at the end
  * are read by delta-spark.
  *
  * And racing for real: threads running txlog's MERGE and DELETE, delta-spark's DELETE and OPTIMIZE
  * and txlog's OPTIMIZE on one table at once, each operation tried up to three times when it
  * conflicts (any other error fails the test); at the end every acknowledged change is in the table
  * exactly once (a counter row incremented once per acknowledged MERGE, its inserted row once, the
  * acknowledged deletes' rows gone) and nothing else changed, read by delta-spark and by txlog.
  */
class DmlRaceSuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn

  /** Ids 0-39 with v 'v0' in four files with deletion vectors on: even ids in part a, odd in b, ids
    * under 20 in the first file of each.
    */
  private def table(name: String): String = {
    val t = tempDir(name).resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$t` (id BIGINT, part STRING, v STRING) USING delta " +
        "PARTITIONED BY (part) TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
    )
    for (from <- Seq(0, 20)) {
      spark.sql(
        s"INSERT INTO delta.`$t` SELECT /*+ REPARTITION(1) */ id, IF(id % 2 = 0, 'a', 'b'), 'v0' " +
          s"FROM range($from, ${from + 20})"
      )
    }
    t
  }

  /** id 2 updated to 'u' and id 4 deleted (both in part a's first file), id 100 inserted. */
  private def merge(t: String)(between: => Unit): Unit = {
    val source =
      spark.sql("SELECT * FROM VALUES (2L, 'u'), (4L, 'd'), (100L, 'new') AS s(id, v)").as("s")
    val clauses = Seq(
      Clause(DmlStatements.MatchedDelete, Some("s.v = 'd'"), Some(Nil)),
      Clause(DmlStatements.MatchedUpdate, None, Some(Seq("v" -> "s.v"))),
      Clause(
        DmlStatements.NotMatchedInsert,
        None,
        Some(Seq("id" -> "s.id", "part" -> "'a'", "v" -> "s.v"))
      )
    )
    val ctx = DeltaLog.forTable(spark, t).context
    DmlStatements.merge(ctx, source, "target.id = s.id", "target", clauses, () => between)
    ()
  }

  private def rows(t: String): Seq[String] =
    Rows.sorted(spark.read.format("delta").load(t).select("id", "v"))

  /** The rows ids 0-39 (less `gone`) and `more` give, with the MERGE's change when `merged`. */
  private def expected(merged: Boolean, gone: Set[Long] = Set(), more: Seq[Long] = Nil) = {
    val base = ((0L until 40L) ++ more).filterNot(gone).map(i => i -> "v0").toMap
    val after = if (merged) base - 4L + (2L -> "u") + (100L -> "new") else base
    after.toSeq.map { case (i, v) => s"{$i, $v}" }.sorted
  }

  /** The MERGE with `other` landing first fails as a conflict and leaves the table as `other` left
    * it; run again, it lands.
    */
  private def conflicts(t: String, gone: Set[Long] = Set())(other: => Unit): Unit = {
    val version = DeltaLog.forTable(spark, t).update().version
    val e = intercept[Throwable](merge(t)(other))
    val typed = txlog.testing.Causes.txlog(e)
    assert(typed.exists(_.errorClass.startsWith("CONCURRENT_")), e)
    assert(DeltaLog.forTable(spark, t).update().version == version + 1, "only the other commit")
    assert(rows(t) == expected(merged = false, gone))
    merge(t)(())
    assert(rows(t) == expected(merged = true, gone))
  }

  test("delta-spark's OPTIMIZE first: the MERGE conflicts, nothing of it lands; then once") {
    val t = table("opt-delta")
    conflicts(t)(spark.sql(s"OPTIMIZE delta.`$t`").collect())
  }

  test("a blind append first (delta-spark's INSERT): no conflict, both land") {
    val t = table("append")
    merge(t)(spark.sql(s"INSERT INTO delta.`$t` VALUES (200, 'b', 'v0'), (201, 'a', 'v0')"))
    assert(rows(t) == expected(merged = true, more = Seq(200L, 201L)))
  }

  inTurn("txlog's OPTIMIZE first: the MERGE conflicts, nothing of it lands; then once") {
    val t = table("opt-txlog")
    conflicts(t)(assert(DeltaLog.forTable(spark, t).optimize().numRemovedFiles == 4))
  }

  /** Whether `e` is a writer's report of a concurrent commit: txlog's CONCURRENT_* error classes,
    * or delta-spark's concurrent modification exceptions.
    */
  private def conflict(e: Throwable): Boolean =
    txlog.testing.Causes.txlog(e).exists(_.errorClass.startsWith("CONCURRENT_")) ||
      Iterator.iterate(e)(_.getCause).takeWhile(_ != null).exists { c =>
        c.isInstanceOf[io.delta.exceptions.DeltaConcurrentModificationException] ||
        c.getClass.getName.startsWith("io.delta.exceptions.Concurrent")
      }

  /** Runs `op` until it lands (true), at most three times; false when every try conflicted.
    * Anything but a conflict fails the test.
    */
  private def acknowledged(op: => Unit): Boolean =
    (1 to 3).exists { _ =>
      try { op; true }
      catch { case e: Throwable if conflict(e) => false }
    }

  inTurn(
    "racing threads: txlog MERGE and DELETE, delta-spark DELETE and OPTIMIZE, txlog " +
      "OPTIMIZE; every acknowledged change once"
  ) {
    val t = tempDir("threads").resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$t` (id BIGINT, part STRING, n INT) USING delta " +
        "PARTITIONED BY (part) TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
    )
    for (from <- Seq(0, 20)) {
      spark.sql(
        s"INSERT INTO delta.`$t` SELECT /*+ REPARTITION(2) */ id, IF(id % 2 = 0, 'a', 'b'), 0 " +
          s"FROM range($from, ${from + 20})"
      )
    }
    val ops = 3
    def log = DeltaLog.forTable(spark, t)
    // each worker's acknowledged operations, by index
    val workers: Seq[(String, Int => Unit)] = Seq(
      // counter row 2 incremented, row 500 + i inserted
      "merge" -> { i =>
        val source = spark.sql(s"SELECT * FROM VALUES (2L), (${500 + i}L) AS s(id)").as("s")
        log
          .merge(source, "target.id = s.id")
          .whenMatched()
          .update(Map("n" -> "target.n + 1"))
          .whenNotMatched()
          .insert(Map("id" -> "s.id", "part" -> "'a'", "n" -> "0"))
          .execute()
        ()
      },
      "txlog delete" -> { i => log.delete(s"id = ${10 + i}"); () },
      "delta-spark delete" -> { i =>
        spark.sql(s"DELETE FROM delta.`$t` WHERE id = ${20 + i}").collect(); ()
      },
      "optimize" -> { i =>
        if (i % 2 == 0) spark.sql(s"OPTIMIZE delta.`$t`").collect() else log.optimize()
        ()
      }
    )
    val pool = java.util.concurrent.Executors.newFixedThreadPool(workers.size)
    val done =
      try {
        val futures = workers.map { case (name, op) =>
          name -> pool.submit(new java.util.concurrent.Callable[Seq[Boolean]] {
            override def call(): Seq[Boolean] = (0 until ops).map(i => acknowledged(op(i)))
          })
        }
        futures.map { case (name, f) => name -> f.get(10, java.util.concurrent.TimeUnit.MINUTES) }
      } finally pool.shutdownNow()
    val acked = done.toMap.map { case (name, results) =>
      name -> results.zipWithIndex.collect { case (true, i) => i }.toSet
    }
    val merged = acked("merge")
    val gone = acked("txlog delete").map(10L + _) ++ acked("delta-spark delete").map(20L + _)
    val ids = ((0L until 40L).toSet -- gone) ++ merged.map(500L + _)
    val expected = ids.toSeq.map(id => s"{$id, ${if (id == 2L) merged.size else 0}}").sorted
    val context = s"acknowledged: $acked"
    withClue(context) {
      // the race exercised txlog's DML: some of it landed among the others' commits
      assert(acked("merge").nonEmpty || acked("txlog delete").nonEmpty)
      // delta-spark's reader and txlog's: every row once, every acknowledged change in it
      assert(Rows.sorted(spark.read.format("delta").load(t).select("id", "n")) == expected)
      assert(Rows.sorted(DeltaLog.forTable(spark, t).read().select("id", "n")) == expected)
    }
  }

  inTurn("delta-spark's DELETE of a row of the same file first: a conflict; then both") {
    val t = table("delete")
    conflicts(t, gone = Set(6L))(spark.sql(s"DELETE FROM delta.`$t` WHERE id = 6").collect())
  }
}
