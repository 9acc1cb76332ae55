package txlog.write

import org.apache.spark.sql.functions.col

import txlog.{DeltaLog, SparkSuite, TxlogException}
import txlog.scan.Rows

/** `DeltaLog.delete` with a condition on data columns ([[RowDelete]]): the rows it matches deleted
  * by deletion vectors, as delta-spark's DELETE of the same rows (its rows and counts in the same
  * run); partition conditions still remove whole files; bad predicates fail typed before anything
  * is written.
  */
class RowDeleteSuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn

  private def table(dvs: Boolean): (String, String) = {
    val (t, d) = (tempDir("rowdelt").toString, tempDir("rowdeld").toString)
    val df = spark.range(0, 40).selectExpr("id", "IF(id % 2 = 0, 'a', 'b') AS part")
    val props = s"'delta.enableDeletionVectors' = '$dvs'"
    spark.sql(
      s"CREATE TABLE delta.`$d` (id BIGINT, part STRING) USING delta " +
        s"PARTITIONED BY (part) TBLPROPERTIES ($props)"
    )
    df.coalesce(1).write.format("delta").mode("append").save(d)
    // the same files: txlog's table is a copy of delta-spark's
    org.apache.commons.io.FileUtils.copyDirectory(new java.io.File(d), new java.io.File(t))
    (t, d)
  }

  private def counts(path: String): Map[String, String] = {
    val keys = Seq(
      "numRemovedFiles",
      "numDeletedRows",
      "numDeletionVectorsAdded",
      "numDeletionVectorsUpdated",
      "numDeletionVectorsRemoved",
      "numCopiedRows"
    )
    val m = DeltaLog
      .forTable(spark, path)
      .history()
      .head()
      .getAs[scala.collection.Map[String, String]]("operationMetrics")
    keys.map(k => k -> m.getOrElse(k, "absent")).toMap
  }

  private def rows(path: String) = Rows.sorted(spark.read.format("delta").load(path))

  inTurn("a data condition deletes by deletion vectors: delta-spark's rows and counts") {
    val (t, d) = table(dvs = true)
    val log = DeltaLog.forTable(spark, t)
    for (cond <- Seq("id % 3 = 0", "id < 10 OR id = 39", "part = 'a' AND id > 30")) {
      val r = log.delete(cond)
      spark.sql(s"DELETE FROM delta.`$d` WHERE $cond")
      assert(r.committed, cond)
      assert(rows(t) == rows(d), cond)
      assert(counts(t) == counts(d), cond)
      assert(r.numDeletedRows.map(_.toString) == counts(d).get("numDeletedRows"), cond)
    }
    assert(log.update().allFiles.where(col("deletionVector").isNotNull).count() == 2)
    val none = log.delete("id > 1000")
    assert(!none.committed && none.numDeletedRows.contains(0L))
    assert(Rows.sorted(log.update().toDF) == rows(d))
  }

  /** A delete of row 3 that a commit changing its file (`concurrently`) overtakes: it must fail as
    * a conflict with no row brought back (`afterConflict` checks more); then a delete of row 4 with
    * a blind append of rows 100 and 101 (`format`) in between, which must commit. The ids after.
    */
  private def raced(t: String, format: String)(concurrently: => Unit)(
      afterConflict: => Unit
  ): Seq[Long] = {
    val log = DeltaLog.forTable(spark, t)
    val ctx = log.context
    val snap = log.update()
    val started = System.nanoTime()
    val touched = RowDelete.touched(ctx, snap, "id = 3")
    assert(touched.map(_.dv.cardinality) == Seq(1L))
    concurrently
    val e = intercept[TxlogException](DvDelete.commit(ctx, snap, touched, Seq("id = 3"), started))
    assert(e.errorClass.startsWith("CONCURRENT_"), e.errorClass)
    assert(rows(t).length == 39)
    afterConflict
    val again = log.update()
    val mine = RowDelete.touched(ctx, again, "id = 4")
    spark
      .range(100, 102)
      .selectExpr("id", "'a' AS part")
      .write
      .format(format)
      .mode("append")
      .save(t)
    val r = DvDelete.commit(ctx, again, mine, Seq("id = 4"), started).get
    assert(r.committed && r.numDeletedRows.contains(1L))
    spark.read.format("delta").load(t).select("id").collect().map(_.getLong(0)).toSeq
  }

  inTurn("a concurrent commit: one changing the same files conflicts, a blind append does not") {
    val (t, d) = table(dvs = true)
    // the same file gets another vector first: this delete's removes name the old one
    val ids = raced(t, "txlog")(DeltaLog.forTable(spark, t).delete("id = 5"))(())
    assert(!ids.contains(4L) && !ids.contains(5L) && ids.contains(3L) && ids.contains(101L))
    assert(new java.io.File(d).exists)
  }

  inTurn("without deletion vectors: touched files rewritten, as delta-spark's copy-on-write") {
    val (t, d) = table(dvs = false)
    val log = DeltaLog.forTable(spark, t)
    // a few rows of both files, then every row of one of them (removed, nothing written for it);
    // the number of files written is each writer's packing of the touched files into tasks
    for (cond <- Seq("id % 7 = 0", "part = 'b' AND id < 20", "part = 'a'")) {
      val r = log.delete(cond)
      spark.sql(s"DELETE FROM delta.`$d` WHERE $cond")
      assert(r.committed, cond)
      assert(rows(t) == rows(d), cond)
      assert(counts(t) == counts(d), cond)
    }
    val files = log.update().allFiles
    assert(files.where(col("deletionVector").isNotNull).count() == 0)
    assert(files.where("stats_parsed.numRecords IS NULL").count() == 0)
    // the vectors that said which rows to drop are gone: no version names them
    val dvFiles = new java.io.File(t).listFiles().map(_.getName).filter(_.startsWith("deletion"))
    assert(dvFiles.isEmpty, dvFiles.mkString(", "))
    assert(!log.delete("id > 1000").committed)
  }

  inTurn("copy-on-write racing delta-spark: a rewritten file conflicts, an append does not") {
    val (t, _) = table(dvs = false)
    def notes = new java.io.File(t).listFiles().map(_.getName).filter(_.startsWith("deletion"))
    // delta-spark rewrites the same file first: this delete must not bring row 5 back; the
    // append's rows are not rewritten away
    val ids = raced(t, "delta")(spark.sql(s"DELETE FROM delta.`$t` WHERE id = 5")) {
      assert(notes.isEmpty, notes.mkString(", "))
    }
    assert(ids.sorted == ((0L until 40L).filterNot(Set(4L, 5L)) ++ Seq(100L, 101L)))
    assert(notes.isEmpty, notes.mkString(", "))
  }

  inTurn("vectors turned off: files with vectors rewritten without their rows, as delta-spark's") {
    val (t, d) = table(dvs = true)
    val log = DeltaLog.forTable(spark, t)
    log.delete("id % 5 = 0")
    spark.sql(s"DELETE FROM delta.`$d` WHERE id % 5 = 0")
    val off = "ALTER TABLE delta.`%s` SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'false')"
    Seq(t, d).foreach(p => spark.sql(off.format(p)))
    val r = log.delete("id = 3 OR id = 4")
    spark.sql(s"DELETE FROM delta.`$d` WHERE id = 3 OR id = 4")
    assert(r.committed && rows(t) == rows(d))
    assert(counts(t) == counts(d))
    assert(log.update().allFiles.where(col("deletionVector").isNotNull).count() == 0)
  }

  test("bad predicates fail typed, nothing written") {
    val (t, _) = table(dvs = false)
    val log = DeltaLog.forTable(spark, t)
    val before = log.update().version
    def failure(p: String) = intercept[TxlogException](log.delete(p)).errorClass
    assert(failure("nope = 1") == "INVALID_ARGUMENT")
    assert(failure("id = = 1") == "INVALID_ARGUMENT")
    assert(log.update().version == before)
    assert(log.delete("part = 'a'").numRemovedFiles == 1L)
  }

}
