package txlog.txn

import java.nio.file.Files

import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.types.StructType

import txlog.{DeltaLog, SparkSuite, TxlogException}

/** A small commit runs no Spark job: file actions given as JSON entries (Python's list of dicts) or
  * as a local DataFrame are parsed, checked and written on the driver. delta-spark reads what was
  * committed; bad entries are refused before anything is written.
  */
class ActionEntriesSuite extends SparkSuite {
  private val schema = StructType.fromDDL("id BIGINT, d STRING")

  private def jobsOf[T](group: String)(body: => T): (T, Int) = {
    val sc = spark.sparkContext
    sc.setJobGroup(group, group)
    try {
      val result = body
      (result, sc.statusTracker.getJobIdsForGroup(group).length)
    } finally sc.clearJobGroup()
  }

  private def entry(i: Int): String =
    s"""{"path": "d=a/f$i.parquet", "size": ${100 + i}, "partitionValues": {"d": "a"}, """ +
      s""""modificationTime": ${1700000000000L + i}, "dataChange": true, """ +
      s""""stats": "{\\"numRecords\\": ${i + 1}}"}"""

  private def refFiles(
      dir: String
  ): Seq[(String, Long, Map[String, String], Long, Option[Long])] = {
    RefLog.clearCache()
    RefLog
      .forTable(spark, dir)
      .update()
      .allFiles
      .collect()
      .toSeq
      .map(f => (f.path, f.size, f.partitionValues, f.modificationTime, f.numLogicalRecords))
      .sortBy(_._1)
  }

  test("entries and a local DataFrame commit without a Spark job; delta-spark reads them") {
    val dir = tempDir("entries").resolve("t").toString
    val log = DeltaLog.createTable(spark, dir, schema, Seq("d"), Map.empty)
    val (r1, jobs1) = jobsOf("entries") {
      log.startTransaction().addFileEntries(s"[${entry(0)}, ${entry(1)}]").commit("WRITE")
    }
    assert((r1.version, jobs1) === ((1L, 0)))
    assert(
      refFiles(dir) === Seq(
        ("d=a/f0.parquet", 100L, Map("d" -> "a"), 1700000000000L, Some(1L)),
        ("d=a/f1.parquet", 101L, Map("d" -> "a"), 1700000000001L, Some(2L))
      )
    )
    // a DataFrame of local rows (Seq.toDF): its action lines fold into a local relation too
    val s = spark
    import s.implicits._
    val local = Seq(("d=a/f2.parquet", 7L, Map("d" -> "a"), 5L, true))
      .toDF("path", "size", "partitionValues", "modificationTime", "dataChange")
    val (r2, jobs2) = jobsOf("local")(log.startTransaction().addFiles(local).commit("WRITE"))
    assert((r2.version, jobs2) === ((2L, 0)))
    // removes are matched to the snapshot's live files (a join): not a driver-only commit
    val r3 = log
      .startTransaction()
      .removeFileEntries("""[{"path": "d=a/f0.parquet", "dataChange": true}]""")
      .commit("DELETE")
    assert(r3.version === 3L)
    assert(refFiles(dir).map(_._1) === Seq("d=a/f1.parquet", "d=a/f2.parquet"))
  }

  test("an entry that is not an object of the action's fields is refused, nothing written") {
    val dir = tempDir("entries-bad").resolve("t")
    val log = DeltaLog.createTable(spark, dir.toString, schema, Seq("d"), Map.empty)
    def listing = Files.list(dir.resolve("_delta_log")).toArray.map(_.toString).sorted.toSeq
    val before = listing
    val good = entry(0)
    val cases = Seq(
      s"""[$good, ${good.dropRight(1)}, "modification_time": 1}]""" ->
        "add entry 1: it has modification_time, which the action does not have",
      s"[${good.replace(""""size": 100""", """"size": "big"""")}]" ->
        """add entry 0: size must be a whole number, not the string "big"""",
      s"[${good.replace(""""dataChange": true""", """"dataChange": 1.5""")}]" ->
        "add entry 0: dataChange must be true or false, not 1.5",
      s"[$good, 3]" -> "add entry 1: it is 3, not an object",
      s"""[${good.dropRight(1)}, "deletionVector": {"offset": 1, "id": 2}}]""" ->
        "add entry 0: deletionVector has id, which the action does not have",
      s"""{"path": "x"}""" -> "must be a JSON array",
      "[{" -> "not JSON"
    )
    cases.foreach { case (json, says) =>
      val e = intercept[TxlogException](log.startTransaction().addFileEntries(json).commit())
      assert(e.errorClass === "INVALID_COMMIT_ACTIONS", json)
      assert(e.getMessage.contains(says), e.getMessage)
      assert(e.getMessage.contains(dir.toString), e.getMessage)
    }
    // a required field missing is the commit's own check, as for a DataFrame
    val e = intercept[TxlogException] {
      log.startTransaction().addFileEntries("""[{"path": "d=a/g"}]""").commit()
    }
    assert(e.getMessage.contains("add without size: d=a/g"), e.getMessage)
    assert(listing === before)
  }
}
