package txlog.txn

import java.util.concurrent.atomic.AtomicLong

import org.apache.spark.sql.Row
import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.functions.{concat, lit, typedLit, udf}
import org.apache.spark.sql.types.{LongType, StructType}

import txlog.{DeltaLog, SparkSuite}

/** A staged DataFrame is evaluated once per commit: what the row ids are assigned from, what is
  * checked and what the commit file holds are one evaluation, however often the DataFrame would
  * give other rows. A DataFrame naming its file after a counter that every evaluation advances
  * shows it, on a row-tracking table (whose row ids need a count of the adds first) with the
  * commit's lines checked and staged by executors (the distributed path, which reads them several
  * times). delta-spark reads what was committed.
  */
class CommitInputsSuite extends SparkSuite {

  test("a staged DataFrame is evaluated once: its one evaluation is what is committed") {
    val dir = tempDir("staged-once").resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$dir` (id BIGINT) USING delta " +
        "TBLPROPERTIES ('delta.enableRowTracking' = 'true')"
    )
    CommitInputsSuite.evaluations.set(0)
    val next = udf(() => CommitInputsSuite.evaluations.incrementAndGet()).asNondeterministic()
    val adds = spark
      .range(1)
      .select(
        concat(lit("f-"), next().cast("string"), lit(".parquet")).as("path"),
        lit(100L).as("size"),
        typedLit(Map.empty[String, String]).as("partitionValues"),
        lit(1700000000000L).as("modificationTime"),
        lit(true).as("dataChange"),
        lit("""{"numRecords":3}""").as("stats")
      )
    spark.conf.set(txlog.config.TxlogConf.CommitMaxDriverBytes.key, "1")
    val r =
      try DeltaLog.forTable(spark, dir).startTransaction().addFiles(adds).commit("WRITE")
      finally spark.conf.unset(txlog.config.TxlogConf.CommitMaxDriverBytes.key)
    assert(CommitInputsSuite.evaluations.get === 1L, "evaluations of the staged DataFrame")
    RefLog.clearCache()
    val files = RefLog.forTable(spark, dir).update().allFiles.collect().toSeq
    assert(files.map(f => (f.path, f.baseRowId)) === Seq("f-1.parquet" -> Some(0L)))
    assert(r.version === 1L)
  }

  test("head: the rows take gives, in one job where take runs two") {
    val sc = spark.sparkContext
    def jobs[T](group: String)(body: => T): (T, Int) = {
      sc.setJobGroup(group, group)
      try {
        val result = body
        (result, sc.statusTracker.getJobIdsForGroup(group).length)
      } finally sc.clearJobGroup()
    }
    val schema = new StructType().add("id", LongType)
    // as a Python list becomes a DataFrame: two partitions, the first empty
    val listed = spark.createDataFrame(sc.parallelize(Seq(Row(7L)), 2), schema)
    val (taken, takeJobs) = jobs("take")(listed.take(10).toSeq)
    val (headed, headJobs) = jobs("head")(CommitInputs.head(listed, 10).toSeq)
    assert(headed === taken && taken === Seq(Row(7L)))
    assert((takeJobs, headJobs) === ((2, 1)))
    // never more than n rows, the first ones, as take; a wide input is read by take itself
    val two = spark.range(0, 6, 1, 2).toDF()
    assert(CommitInputs.head(two, 4).toSeq === two.take(4).toSeq)
    val wide = spark.range(0, 40, 1, 8).toDF()
    assert(CommitInputs.head(wide, 5).toSeq === (0L until 5L).map(Row(_)))
    // a local relation: no job at all
    val local = spark.createDataFrame(java.util.Arrays.asList(Row(1L), Row(2L)), schema)
    assert(jobs("local")(CommitInputs.head(local, 1).toSeq) === ((Seq(Row(1L)), 0)))
  }
}

object CommitInputsSuite {
  val evaluations = new AtomicLong
}
