package txlog.txn

import java.nio.file.{Files, Path => NPath}

import org.apache.spark.sql.catalyst.plans.logical.LocalRelation
import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.functions.{col, expr, typedLit}

import txlog.{DeltaLog, Fixtures, SparkSuite, Transaction, TxlogException}
import txlog.txn.TxnTestKit._

/** Removes are matched by path to the live files of the snapshot the transaction read: a remove
  * staged without the deletion vector of a file that has one removes that file (delta-spark's
  * reader sees its rows gone), and a remove that matches no live file, or names another deletion
  * vector, is refused before anything is written.
  */
class LiveRemovesSuite extends SparkSuite {

  private val dvTable = "golden/dv-partitioned-with-checkpoint"

  /** delta-spark's row count of the latest version, and of the rows read from `file`. */
  private def refCounts(t: NPath, file: String): (Long, Long) = {
    RefLog.clearCache()
    val df = spark.read.format("delta").load(t.toString)
    val name = file.split('/').last
    (df.count(), df.where(col("_metadata.file_path").endsWith(name)).count())
  }

  test("a remove staged without its deletion vector removes the live file with its DV") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy(dvTable, tempDir())
    val log = DeltaLog.forTable(spark, t.toString)
    val before = log.snapshot()
    val txn = log.startTransaction()
    val victim = txn.readFiles().where("deletionVector is not null").limit(1)
    val path = victim.select("path").head().getString(0)
    val (rowsBefore, rowsOfFile) = refCounts(t, path)
    assert(rowsOfFile > 0)
    // As a user stages it (the reproduction): the DV left out.
    txn.removeFiles(victim.select("path", "size", "partitionValues", "dataChange"))
    val r = txn.commit()
    assert(r.version === before.version + 1)
    assert(log.update().numFiles === before.numFiles - 1)
    val removed = commitLines(t, r.version).filter(_.has("remove")).map(_.get("remove"))
    assert(removed.size === 1)
    assert(removed.head.get("path").asText() === path)
    assert(removed.head.hasNonNull("deletionVector"), removed.head.toString)
    RefLog.clearCache()
    assert(RefLog.forTable(spark, t.toString).update().allFiles.count() === before.numFiles - 1)
    assert(refCounts(t, path) === (rowsBefore - rowsOfFile, 0L))
  }

  private def refused(t: NPath, stage: Transaction => Unit): TxlogException = {
    val log = DeltaLog.forTable(spark, t.toString)
    val v = log.snapshot().version
    val txn = log.startTransaction()
    stage(txn)
    val e = intercept[TxlogException](txn.commit())
    assert(e.errorClass === "INVALID_COMMIT_ACTIONS")
    assert(DeltaLog.forTable(spark, t.toString).update().version === v)
    assert(!Files.exists(logDir(t).resolve(f"${v + 1}%020d.json")))
    e
  }

  test("a remove of a path that is not live is refused before anything is written") {
    val t = tempDir("live").resolve("t")
    val log = DeltaLog.createTable(spark, t.toString, schema, Nil, Map.empty)
    val add = adds(spark, Seq("a.parquet"))
      .withColumn("partitionValues", typedLit(Map.empty[String, String]))
    log.startTransaction().addFiles(add).commit()
    val e = refused(t, _.removeFiles(removes(spark, Seq("a.parquet", "gone.parquet"))))
    assert(e.getMessage.contains("not live in version 1"), e.getMessage)
    assert(e.getMessage.contains("gone.parquet"), e.getMessage)
  }

  test("a remove naming a deletion vector the live file does not have is refused") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy(dvTable, tempDir())
    val e = refused(
      t,
      txn => {
        val other = txn
          .readFiles()
          .where("deletionVector is not null")
          .limit(1)
          .withColumn(
            "deletionVector",
            expr(
              "named_struct('storageType', 'u', 'pathOrInlineDv', 'ab^-aqEH.-t@-}', " +
                "'offset', 1, 'sizeInBytes', 34, 'cardinality', 1L)"
            )
          )
        txn.removeFiles(other)
      }
    )
    assert(e.getMessage.contains("deletion vector the live file does not have"), e.getMessage)
  }

  test("removes staged by executors are matched in partitions sized by their bytes") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val session = spark.conf.get("spark.sql.shuffle.partitions").toInt
    // 4 MiB of staged parquet per partition, never fewer than the session's, at most 10,000
    assert(CommitShuffleWidth.of(spark, 0L) === session)
    assert(CommitShuffleWidth.of(spark, 1L << 30) === math.max(session, 256))
    assert(CommitShuffleWidth.of(spark, 1L << 50) === 10000)
    val t = Fixtures.copy(dvTable, tempDir())
    val log = DeltaLog.forTable(spark, t.toString)
    val live = log.snapshot().numFiles
    assert(live > 1)
    spark.conf.set(txlog.config.TxlogConf.CommitMaxDriverBytes.key, "1")
    val r =
      try {
        val txn = log.startTransaction()
        // without their deletion vectors: each takes its live file's, as on the driver
        txn.removeFiles(txn.readFiles().select("path", "size", "partitionValues", "dataChange"))
        txn.commit()
      } finally spark.conf.unset(txlog.config.TxlogConf.CommitMaxDriverBytes.key)
    RefLog.clearCache()
    val ref = RefLog.forTable(spark, t.toString).update()
    assert(ref.version === r.version)
    assert(ref.allFiles.count() === 0L, "files delta-spark still sees live")
    assert(spark.read.format("delta").load(t.toString).count() === 0L)
  }

  test("removes on the driver are matched there as the distributed join matches them") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy(dvTable, tempDir())
    val snap = DeltaLog.forTable(spark, t.toString).snapshot()
    // every live file without its deletion vector, one twice, and a path that is not live
    val staged = snap.allFiles
      .select("path", "size", "partitionValues", "dataChange")
      .unionByName(snap.allFiles.limit(1).select("path", "size", "partitionValues", "dataChange"))
      .unionByName(
        snap.allFiles
          .limit(1)
          .select(typedLit("gone.parquet").as("path"), col("size"), col("partitionValues"))
          .withColumn("dataChange", typedLit(true))
      )
    val rows = staged.collect()
    val local = spark.createDataFrame(java.util.Arrays.asList(rows: _*), staged.schema)
    def run(df: org.apache.spark.sql.DataFrame) =
      LiveRemoves.matched(df, snap.allFiles, snap.tablePath, snap.version)
    val onDriver = run(local)
    assert(onDriver.queryExecution.optimizedPlan.isInstanceOf[LocalRelation])
    val distributed = run(local.repartition(2))
    assert(!distributed.queryExecution.optimizedPlan.isInstanceOf[LocalRelation])
    def text(df: org.apache.spark.sql.DataFrame) = df.collect().map(_.toString).sorted.toSeq
    assert(text(onDriver) == text(distributed))
    val problems = onDriver.where(col(LiveRemoves.Problem).isNotNull).count()
    assert(problems == 1L, text(onDriver).mkString("\n"))
    assert(onDriver.where(col("deletionVector").isNotNull).count() > 0)
  }
}
