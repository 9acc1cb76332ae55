package txlog.scan

import java.nio.file.{Files, Paths}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types._

import txlog.{DeltaLog, SparkSuite}
import txlog.protocol.FileColumns

/** Statistics held only in a checkpoint's `add.stats_parsed` (tables written by delta-spark with
  * `delta.checkpoint.writeStatsAsJson = false`): the file state turns them back into JSON, so
  * `allFiles` has them and a checkpoint txlog writes keeps them; scans skip files by them. Tables
  * with both columns are scanned without reading the JSON. Expected statistics are the ones the
  * commits wrote; expected rows and files read are delta-spark's. `make test` runs the first filter
  * and half of the others, which half rotating by day ([[txlog.testing.Breadth]]), and the two
  * layouts of disagreeing parts and the renamed column in turn ([[txlog.testing.InTurn]]).
  */
class CheckpointStatsSuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn

  private val Schema = "id INT, name STRING, amount DOUBLE, d DATE, ts TIMESTAMP, " +
    "dec DECIMAL(10,2), p STRING"

  private def insert(t: String, from: Int): Unit = spark.sql(
    s"INSERT INTO delta.`$t` SELECT id, CASE WHEN id % 7 = 0 THEN NULL ELSE concat('n', id) END, " +
      "id * 1.5, date_add(DATE'2024-01-01', CAST(id AS INT)), " +
      "timestamp_seconds(1700000000 + id * 3600), CAST(id / 3 AS DECIMAL(10,2)), " +
      s"CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END FROM range($from, ${from + 10}, 1, 3)"
  )

  /** Six inserts checkpointed at v6 (as many parts as actions, past what txlog reads on the driver:
    * 32 files), then two inserts and a delete after the checkpoint. `json` and `struct` are the
    * table's checkpoint statistics properties.
    */
  private def table(name: String, json: Boolean, struct: Boolean, partSize: Option[Int]): String = {
    val t = tempDir(name).resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$t` ($Schema) USING delta PARTITIONED BY (p) TBLPROPERTIES (" +
        s"'delta.checkpoint.writeStatsAsJson' = '$json', " +
        s"'delta.checkpoint.writeStatsAsStruct' = '$struct', 'delta.checkpointInterval' = '6')"
    )
    val key = "spark.databricks.delta.checkpoint.partSize"
    partSize.foreach(n => spark.conf.set(key, n.toString))
    try { (0 until 60 by 10).foreach(insert(t, _)) }
    finally spark.conf.unset(key)
    insert(t, 60)
    insert(t, 70)
    spark.sql(s"DELETE FROM delta.`$t` WHERE id IN (12, 44, 71)")
    t
  }

  private lazy val structOnly = table("stats-struct", json = false, struct = true, Some(1))
  private lazy val bothColumns = table("stats-both", json = true, struct = true, None)

  private def checkpointFiles(t: String, version: Long): Seq[String] =
    Files
      .list(Paths.get(t, "_delta_log"))
      .iterator()
      .asScala
      .map(_.toString)
      .toSeq
      .filter(f => f.contains(f"$version%020d.checkpoint") && f.endsWith(".parquet"))
      .sorted

  /** The newest checkpoint of `t` has `add.stats_parsed` (delta-spark 3.3 writes none). */
  private def assumeTyped(t: String): Unit = {
    val cp = DeltaLog
      .forTable(spark, t)
      .snapshot()
      .checkpointVersion
      .toSeq
      .flatMap(checkpointFiles(t, _))
    assume(
      cp.nonEmpty && addFields(spark.read.parquet(cp: _*)).contains("stats_parsed"),
      s"this delta-spark ($deltaVersion) wrote no stats_parsed in the checkpoint of $t"
    )
  }

  private def deltaVersion: String = io.delta.VERSION

  private def addFields(df: DataFrame): Seq[String] =
    df.schema("add").dataType.asInstanceOf[StructType].fieldNames.toSeq

  /** (path, statistics as parsed from the JSON of the commits that added the files). */
  private def committedStats(t: String): DataFrame = {
    val md = DeltaLog.forTable(spark, t).snapshot().metadata
    spark.read
      .json(Paths.get(t, "_delta_log").toString + "/*.json")
      .where(col("add").isNotNull)
      .select(col("add.path").as("path"), FileColumns.statsParsed(col("add.stats"), md).as("s"))
  }

  private def both(t: String, where: String) = (
    ScanPlans.filesRead(DeltaLog.forTable(spark, t).read().where(where)),
    ScanPlans.filesRead(spark.read.format("delta").load(t).where(where))
  )

  test("a checkpoint without JSON statistics: allFiles has those the commits wrote") {
    assumeTyped(structOnly)
    val cp = checkpointFiles(structOnly, 6)
    assert(cp.size > 32, "more parts than footers are read on the driver")
    val written = spark.read.parquet(cp: _*)
    assert(!addFields(written).contains("stats") && addFields(written).contains("stats_parsed"))
    val snap = DeltaLog.forTable(spark, structOnly).snapshot()
    assert(snap.checkpointVersion.contains(6L))
    val ours = snap.allFiles.select(
      col("path"),
      FileColumns.statsParsed(col("stats"), snap.metadata).as("ours")
    )
    val joined = ours.join(committedStats(structOnly), "path")
    assert(joined.count() === snap.numFiles && snap.numFiles > 10)
    assert(joined.where(col("ours.numRecords").isNull).isEmpty)
    assert(joined.where(!(col("ours") <=> col("s"))).isEmpty)
  }

  test("a checkpoint txlog writes from it keeps them, and delta-spark skips files by them") {
    assumeTyped(structOnly)
    val t = tempDir("stats-rewrite").resolve("t")
    copyTree(Paths.get(structOnly), t)
    val log = DeltaLog.forTable(spark, t.toString)
    val version = log.snapshot().version
    log.checkpoint()
    val cp = checkpointFiles(t.toString, version)
    assert(cp.nonEmpty)
    val adds = spark.read.parquet(cp: _*).where(col("add").isNotNull)
    assert(adds.count() === log.snapshot().numFiles)
    assert(adds.where(col("add.stats_parsed.numRecords").isNull).isEmpty)
    val (_, (refFiles, refRows)) = both(t.toString, "p = 'odd' AND id = 41")
    assert(refRows.size === 1 && refFiles === 1)
  }

  private val filters = Seq(
    "id >= 25 AND id < 32",
    "name IS NULL",
    "ts < TIMESTAMP'2023-11-15 03:00:00'",
    "dec BETWEEN 5 AND 6",
    "amount > 100 OR id < 3",
    "p = 'odd' AND id > 70"
  )
  txlog.testing.Breadth.share(filters, 2, suiteName)(_ == filters.head).foreach { where =>
    test(s"typed statistics skip files as delta-spark does, same rows: $where") {
      Seq(structOnly, bothColumns).foreach { t =>
        val ((files, rows), (refFiles, refRows)) = both(t, where)
        assert(rows === refRows)
        assert(files <= refFiles, s"txlog read $files files, delta-spark $refFiles")
      }
    }
  }

  test("with typed statistics only, a point filter reads one file of the checkpoint's") {
    assumeTyped(structOnly)
    // even and odd files of one insert overlap in ids: the partition filter leaves one of them
    val ((files, rows), _) = both(structOnly, "p = 'odd' AND id = 41")
    assert(rows.size === 1 && files === 1)
  }

  test("every add typed (proved by the footers): the checkpoint's JSON is not read") {
    assumeTyped(bothColumns)
    val snap = DeltaLog.forTable(spark, bothColumns).snapshot()
    val layout = snap.typedStats.flatMap(_.layout)
    assert(layout.exists(l => l.json && l.everyAddTyped && l.typed.isDefined))
    val (files, _) = ScanStats.plan(snap, Set(Seq("id")))
    val scans = files.queryExecution.sparkPlan.collect { case s: FileSourceScanExec => s }
    val checkpoint =
      scans.filter(_.relation.location.rootPaths.exists(_.getName.contains("checkpoint")))
    assert(checkpoint.nonEmpty, files.queryExecution.sparkPlan.toString)
    checkpoint.foreach { s =>
      val add = s.requiredSchema("add").dataType.asInstanceOf[StructType]
      assert(add.fieldNames.contains("stats_parsed") && !add.fieldNames.contains("stats"))
    }
  }

  test("tails reconciled by Spark: the same files and rows") {
    val key = "spark.txlog.replay.maxLocalReadBytes"
    spark.conf.set(key, "0")
    try {
      val ((files, rows), (refFiles, refRows)) = both(structOnly, "id = 41 OR id = 71")
      assert(rows === refRows && rows.size === 1 && files <= refFiles)
    } finally spark.conf.unset(key)
  }

  inTurn("a column renamed after the checkpoint (column mapping) skips by its physical name") {
    val t = tempDir("stats-cm").resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$t` ($Schema) USING delta PARTITIONED BY (p) TBLPROPERTIES (" +
        "'delta.checkpoint.writeStatsAsJson' = 'false', " +
        "'delta.checkpoint.writeStatsAsStruct' = 'true', 'delta.checkpointInterval' = '3', " +
        "'delta.columnMapping.mode' = 'name', 'delta.minReaderVersion' = '2', " +
        "'delta.minWriterVersion' = '5')"
    )
    (0 until 30 by 10).foreach(insert(t, _))
    assumeTyped(t)
    spark.sql(s"ALTER TABLE delta.`$t` RENAME COLUMN id TO key")
    val ((files, rows), (refFiles, refRows)) = both(t, "p = 'odd' AND key = 21")
    assert(rows === refRows && rows.size === 1)
    assert(files === 1 && files <= refFiles)
  }

  test("typed statistics are used only in types that convert exactly to the column's") {
    // "Type Widening": integers to wider integers and doubles, float to double, date to
    // timestamp without time zone, decimals keeping their digits
    val exact = Seq(
      IntegerType -> LongType,
      ShortType -> IntegerType,
      ByteType -> DoubleType,
      FloatType -> DoubleType,
      DateType -> TimestampNTZType,
      IntegerType -> DecimalType(12, 2),
      DecimalType(10, 2) -> DecimalType(12, 4)
    )
    val not = Seq(
      LongType -> IntegerType,
      LongType -> DoubleType,
      DecimalType(10, 2) -> DecimalType(10, 3),
      StringType -> IntegerType,
      TimestampType -> TimestampNTZType,
      DateType -> TimestampType
    )
    exact.foreach { case (a, b) => assert(ScanStats.exact(a, b), s"$a to $b") }
    not.foreach { case (a, b) => assert(!ScanStats.exact(a, b), s"$a to $b") }
    val want = new StructType()
      .add("numRecords", LongType)
      .add("minValues", new StructType().add("a", LongType).add("b", StringType))
    val written = new StructType()
      .add("numRecords", LongType)
      .add("minValues", new StructType().add("a", IntegerType))
    assert(
      ScanStats.requested(want, written) === Some(
        new StructType()
          .add("numRecords", LongType)
          .add("minValues", new StructType().add("a", IntegerType).add("b", StringType))
      )
    )
    val narrowed = new StructType().add("minValues", new StructType().add("a", StringType))
    assert(ScanStats.requested(want, narrowed).isEmpty)
  }

  /** A copy of `structOnly` whose v6 checkpoint has one part (holding adds) with
    * `add.stats_parsed.numRecords` as a string: parts disagreeing on its type. `merge`: the other
    * parts are rewritten as one file (2 parts in all, footers read on the driver); else kept (more
    * than 32: Spark merges their schemas).
    */
  private def disagreeing(merge: Boolean): String = {
    val t = tempDir("stats-disagree").resolve("t")
    copyTree(Paths.get(structOnly), t)
    val log = t.resolve("_delta_log")
    val old = checkpointFiles(t.toString, 6)
    val odd = old.filter(f => !spark.read.parquet(f).where(col("add").isNotNull).isEmpty).last
    val out = tempDir("stats-parts")
    def writeOne(df: DataFrame, dir: String): java.nio.file.Path = {
      df.coalesce(1).write.parquet(out.resolve(dir).toString)
      Files.list(out.resolve(dir)).iterator().asScala.find(_.toString.endsWith(".parquet")).get
    }
    val retyped = spark.read
      .parquet(odd)
      .withColumn(
        "add",
        col("add")
          .withField("stats_parsed.numRecords", col("add.stats_parsed.numRecords").cast("string"))
      )
    val b = writeOne(retyped, "b")
    Files.deleteIfExists(log.resolve("_last_checkpoint"))
    old.foreach(f => Files.deleteIfExists(log.resolve(s".${Paths.get(f).getFileName}.crc")))
    if (merge) {
      val a = writeOne(spark.read.parquet(old.filterNot(_ == odd): _*), "a")
      old.foreach(f => Files.delete(Paths.get(f)))
      Files.move(a, log.resolve(f"${6}%020d.checkpoint.${1}%010d.${2}%010d.parquet"))
      Files.move(b, log.resolve(f"${6}%020d.checkpoint.${2}%010d.${2}%010d.parquet"))
    } else Files.move(b, Paths.get(odd), java.nio.file.StandardCopyOption.REPLACE_EXISTING)
    t.toString
  }

  for ((merge, how) <- Seq(true -> "footers on the driver", false -> "a schema-merge job"))
    inTurn(s"parts disagreeing on the stats_parsed type, no JSON stats: a typed error ($how)") {
      assumeTyped(structOnly)
      val t = disagreeing(merge)
      val e =
        intercept[txlog.TxlogException](DeltaLog.forTable(spark, t).snapshot().allFiles.count())
      assert(e.errorClass === "MALFORMED_LOG_FILE", e.getMessage)
      assert(e.getMessage.contains("00000000000000000006.checkpoint."), e.getMessage)
    }

  private def copyTree(from: java.nio.file.Path, to: java.nio.file.Path): Unit =
    Files.walk(from).iterator().asScala.foreach { p =>
      val target = to.resolve(from.relativize(p).toString)
      if (Files.isDirectory(p)) Files.createDirectories(target) else Files.copy(p, target)
    }
}
