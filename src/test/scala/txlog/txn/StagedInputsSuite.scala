package txlog.txn

import java.util.concurrent.atomic.AtomicLong

import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.functions.{concat, lit, typedLit, udf}

import txlog.{DeltaLog, SparkSuite}

/** A staged DataFrame is evaluated once per commit: what the row ids are assigned from, what is
  * checked and what the commit file holds are one evaluation, however often the DataFrame would
  * give other rows. A DataFrame naming its file after a counter that every evaluation advances
  * shows it, on a row-tracking table (whose row ids need a count of the adds first) with the
  * commit's lines checked and staged by executors (the distributed path, which reads them several
  * times). delta-spark reads what was committed.
  */
class StagedInputsSuite extends SparkSuite {

  test("a staged DataFrame is evaluated once: its one evaluation is what is committed") {
    val dir = tempDir("staged-once").resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$dir` (id BIGINT) USING delta " +
        "TBLPROPERTIES ('delta.enableRowTracking' = 'true')"
    )
    StagedInputsSuite.evaluations.set(0)
    val next = udf(() => StagedInputsSuite.evaluations.incrementAndGet()).asNondeterministic()
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
    assert(StagedInputsSuite.evaluations.get === 1L, "evaluations of the staged DataFrame")
    RefLog.clearCache()
    val files = RefLog.forTable(spark, dir).update().allFiles.collect().toSeq
    assert(files.map(f => (f.path, f.baseRowId)) === Seq("f-1.parquet" -> Some(0L)))
    assert(r.version === 1L)
  }
}

object StagedInputsSuite {
  val evaluations = new AtomicLong
}
