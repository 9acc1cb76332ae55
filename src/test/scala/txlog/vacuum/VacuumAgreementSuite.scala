package txlog.vacuum

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._
import scala.util.Success

import txlog.{DeltaLog, SparkSuite}
import txlog.config.TxlogConf
import txlog.replay.DriverBudgets
import txlog.testing.JobDescriptions

/** VACUUM on tables delta-spark writes at test time (partition values with spaces, '=', '%' and
  * unicode; deletion vectors; change data feed; column mapping): txlog's dry run deletes exactly
  * what delta-spark's VACUUM ... DRY RUN would, in full and lite mode; after a real txlog vacuum
  * the table holds what delta-spark's own vacuum leaves of a copy, and the versions within the
  * retention read as before. Each table is built once; tests that delete work on copies.
  */
class VacuumAgreementSuite extends SparkSuite with VacuumTestKit with txlog.testing.InTurn {
  override protected def turns = 3 // make test runs its inTurn tests in turn
  override def extraConf: Map[String, String] = vacuumConf
  private val Hour = 3600L * 1000

  /** Stray files a vacuum must consider: untracked data, empty directories, hidden files. */
  private def litter(t: Path, partitionDir: String): Unit = {
    write(t.resolve("stray-0.parquet"), "x")
    write(t.resolve(partitionDir).resolve("stray-1.parquet"), "xy")
    Files.createDirectories(t.resolve("empty-dir/nested"))
    write(t.resolve(".hidden.parquet"), "h")
    write(t.resolve("_tmp/staged.parquet"), "s")
    write(t.resolve("_delta_log/_not_a_log_file"), "n")
    write(t.resolve(partitionDir).resolve("_SUCCESS"), "")
  }

  private def agree(t: Path, hours: Option[Int], lite: Boolean = false): Set[String] = {
    val t0 = System.nanoTime()
    val ref = refDryRun(t, hours, lite)
    val t1 = System.nanoTime()
    val ours = ourDryRun(t, hours, lite)
    val ourTime = (System.nanoTime() - t1) / 1e9
    info(f"lite=$lite: delta-spark ${(t1 - t0) / 1e9}%.1f s, txlog $ourTime%.1f s")
    (ref, ours) match {
      case (Success(r), Success(o)) =>
        assert(o === r, s"lite=$lite: txlog ${o -- r} extra, ${r -- o} missing")
        o
      case other => fail(s"lite=$lite: $other")
    }
  }

  /** After txlog's vacuum of `ours` and delta-spark's of `ref` (copies of one table): the same
    * files remain; directories may differ only where delta-spark deleted a parent before its empty
    * child (its deletes run in no set order; txlog deletes the deepest first).
    */
  private def sameRemains(ours: Path, ref: Path): Unit = {
    def split(t: Path) = tree(t).partition(p => Files.isDirectory(t.resolve(p)))
    val (ourDirs, ourFiles) = split(ours)
    val (refDirs, refFiles) = split(ref)
    assert(ourFiles === refFiles)
    assert(ourDirs.subsetOf(refDirs), s"txlog kept ${ourDirs -- refDirs}")
    (refDirs -- ourDirs).foreach { d =>
      assert(Files.list(ref.resolve(d)).count() == 0, s"delta-spark kept $d, not empty")
    }
  }

  /** Six rows over four partitions, then a delete, an update, an append and a partition emptied;
    * `props` are set after the first write.
    */
  private def partitioned(name: String, props: String = ""): Path = {
    val t = tempDir().resolve(name)
    val session = spark
    import session.implicits._
    Seq((1, "a b"), (2, "x=y"), (3, "50%"), (4, "ünï"), (5, "a b"), (6, "x=y"))
      .toDF("id", "p")
      .write
      .format("delta")
      .partitionBy("p")
      .save(t.toString)
    if (props.nonEmpty) spark.sql(s"ALTER TABLE delta.`$t` SET TBLPROPERTIES ($props)")
    spark.sql(s"DELETE FROM delta.`$t` WHERE id = 1")
    spark.sql(s"UPDATE delta.`$t` SET id = id + 10 WHERE id = 2")
    Seq((7, "50%")).toDF("id", "p").write.format("delta").mode("append").save(t.toString)
    spark.sql(s"DELETE FROM delta.`$t` WHERE p = 'ünï'")
    litter(t, "p=a b")
    t
  }

  private lazy val plain = partitioned("plain")

  private lazy val withDvs = {
    val t = partitioned("dv", "'delta.enableDeletionVectors' = 'true'")
    spark
      .range(100, 200)
      .selectExpr("CAST(id AS INT) AS id", "'big' AS p")
      .coalesce(1)
      .write
      .format("delta")
      .mode("append")
      .save(t.toString)
    spark.sql(s"DELETE FROM delta.`$t` WHERE id = 5")
    spark.sql(s"DELETE FROM delta.`$t` WHERE id % 3 = 0 AND p = 'big'")
    spark.sql(s"DELETE FROM delta.`$t` WHERE id % 5 = 0 AND p = 'big'")
    t
  }

  private lazy val withCdf = {
    val t = partitioned("cdf", "'delta.enableChangeDataFeed' = 'true'")
    spark.sql(s"UPDATE delta.`$t` SET id = id + 100 WHERE p = '50%'")
    spark.sql(s"DELETE FROM delta.`$t` WHERE id = 16")
    t
  }

  inTurn("partition values with spaces, '=', '%' and unicode: full and lite agree") {
    val full = agree(plain, Some(0))
    assert(full.contains("stray-0.parquet") && full.contains("p=a b/stray-1.parquet"))
    assert(full.contains("empty-dir/nested") && full.exists(_.startsWith("p=ünï/")))
    assert(!full.exists(p => p.startsWith("_") || p.startsWith(".")), full)
    val lite = agree(plain, Some(0), lite = true)
    assert(lite.nonEmpty && !lite.contains("stray-0.parquet"))
    // Files are younger than the table's 7 days; empty directories go whatever their age.
    assert(agree(plain, None) === Set("empty-dir", "empty-dir/nested"))
  }

  inTurn("a retention window: only files older than it go, and every version reads as before") {
    val t = copyTable(plain)
    val old = Seq("stray-0.parquet", "p=a b/stray-1.parquet").map(t.resolve(_))
    old.foreach(age(_, 3 * Hour))
    val latest = latestVersion(t)
    val before = (0L to latest).map(v => v -> rowsAt(t, v).get).toMap
    val expected = Set("stray-0.parquet", "p=a b/stray-1.parquet", "empty-dir", "empty-dir/nested")
    assert(agree(t, Some(2)) === expected)
    val copy = copyTable(t)
    val r = DeltaLog.forTable(spark, t.toString).vacuum(Some(2.0), dryRun = false, force = true)
    assert(r.numFiles === 4 && r.numDeletedFiles === 4 && !r.dryRun && r.mode === "full")
    assert(r.sizeInBytes === 3)
    r.unpersist()
    refVacuum(copy, Some(2))
    sameRemains(t, copy)
    old.foreach(p => assert(!Files.exists(p)))
    (0L to latest).foreach(v => assert(rowsAt(t, v).get === before(v), s"v$v"))
  }

  test("retention 0: the same files remain as after delta-spark's vacuum; the latest reads") {
    // txlog's vacuum both ways: on the driver (no Spark job), and by Spark jobs
    val (t, planned, copy) = (copyTable(plain), copyTable(plain), copyTable(plain))
    val latest = latestVersion(t)
    val rows = rowsAt(t, latest).get
    def vacuum(t: Path) = {
      val r = DeltaLog.forTable(spark, t.toString).vacuum(Some(0.0), dryRun = false, force = true)
      try r.files.collect().map(x => x.getAs[String]("path") -> x.getAs[Boolean]("deleted")).toSet
      finally r.unpersist()
    }
    val (deleted, jobs) = JobDescriptions.of(spark)(vacuum(t))
    assert(jobs.filter(_.startsWith("txlog: vacuum")) === Nil, "a small table's, on the driver")
    val (byJobs, plannedJobs) = withConf(TxlogConf.VacuumOnDriver.key -> "false") {
      JobDescriptions.of(spark)(vacuum(planned))
    }
    assert(plannedJobs.exists(_.startsWith("txlog: vacuum")))
    assert(deleted === byJobs && deleted.nonEmpty)
    refVacuum(copy, Some(0))
    sameRemains(t, copy)
    sameRemains(planned, copy)
    // Hadoop's checksum files go with their files, as delta-spark's deletes take them
    def checksums(t: Path) = {
      val s = Files.walk(t)
      try
        s.iterator()
          .asScala
          .map(t.relativize(_).toString)
          .filter(p => p.endsWith(".crc") && !p.startsWith("_delta_log"))
          .toSet
      finally s.close()
    }
    assert(checksums(copy).exists(_.startsWith("p=")), "delta-spark's data files have them")
    assert(checksums(t) === checksums(copy) && checksums(planned) === checksums(copy))
    assert(rowsAt(t, latest).get === rows)
    deleted.foreach { case (p, d) => assert(d === !Files.exists(t.resolve(p)), p) }
    // A second vacuum finds only what the first could not delete (directories it emptied).
    assert(ourDryRun(t, Some(0)).get === refDryRun(t, Some(0)).get)
    assert(driverDryRuns > 0)
  }

  test("past the driver's budget, a small table's vacuum plans Spark jobs: the same answer") {
    val t = copyTable(plain)
    (0 until 200).foreach(i =>
      write(t.resolve(f"p=50%%/orphan-with-a-long-name-$i%05d.parquet"), "o")
    )
    val log = t.resolve("_delta_log")
    val tail = Files.list(log).filter(_.toString.endsWith(".json")).mapToLong(Files.size(_)).sum
    // the tail fits (1.4 bytes of heap per byte of JSON), the 200 orphans' paths do not
    val budget = (tail * 3 / 2 + 4096).toString
    val onDriver = driverDryRuns
    val (found, jobs) = withConf(DriverBudgets.MaxReplayBytesConf -> budget) {
      JobDescriptions.of(spark)(ourDryRun(t, Some(0)).get)
    }
    assert(driverDryRuns === onDriver, "planned past the budget")
    // the log still read on the driver: every job txlog named is the vacuum's (the others
    // collect the results)
    val named = jobs.filter(_.nonEmpty)
    assert(named.nonEmpty && named.forall(_.startsWith("txlog: vacuum")), jobs)
    assert(found === refDryRun(t, Some(0)).get)
    assert(found.count(_.contains("orphan-with-a-long-name")) === 200)
  }

  test("lite, for real: the same files remain as after delta-spark's LITE") {
    val t = copyTable(plain)
    val copy = copyTable(plain)
    val r = DeltaLog
      .forTable(spark, t.toString)
      .vacuum(Some(0.0), dryRun = false, lite = true, force = true)
    assert(r.mode === "lite" && r.numDeletedFiles > 0 && r.numVacuumedDirectories === 1)
    r.unpersist()
    refVacuum(copy, Some(0), lite = true)
    sameRemains(t, copy)
    assert(Files.exists(t.resolve("stray-0.parquet")), "lite deletes only what the log removed")
  }

  inTurn("deletion vectors: DV files of live files are kept; full and lite agree") {
    val dvs = tree(withDvs).filter(_.contains("deletion_vector_"))
    assert(dvs.nonEmpty)
    val full = agree(withDvs, Some(0))
    agree(withDvs, Some(0), lite = true)
    val live = DeltaLog
      .forTable(spark, withDvs.toString)
      .snapshot()
      .allFiles
      .where("deletionVector IS NOT NULL")
      .count()
    assert(live > 0)
    assert(dvs.exists(d => !full.contains(d)), "every DV file would be deleted")
    val t = copyTable(withDvs)
    val latest = latestVersion(t)
    val rows = rowsAt(t, latest).get
    DeltaLog.forTable(spark, t.toString).vacuum(Some(0.0), dryRun = false, force = true)
    assert(rowsAt(t, latest).get === rows)
  }

  inTurn("change data feed: _change_data files go once out of retention, as delta-spark says") {
    assert(tree(withCdf).exists(_.startsWith("_change_data/")), tree(withCdf))
    val full = agree(withCdf, Some(0))
    assert(full.exists(_.startsWith("_change_data/")))
    agree(withCdf, Some(0), lite = true)
    // Within the retention no change data file goes (their directories are listed as empty
    // directories, which delete calls leave: they are not empty).
    assert(agree(withCdf, Some(1)).forall(p => !p.endsWith(".parquet")))
  }

  test("column mapping and a partition column named with '_': its directories are not hidden") {
    val t = tempDir().resolve("cm")
    val session = spark
    import session.implicits._
    Seq((1, "a"), (2, "b"), (3, "c"))
      .toDF("id", "_part")
      .write
      .format("delta")
      .partitionBy("_part")
      .option("delta.columnMapping.mode", "name")
      .save(t.toString)
    spark.sql(s"DELETE FROM delta.`$t` WHERE id = 2")
    spark.sql(s"ALTER TABLE delta.`$t` RENAME COLUMN id TO ident")
    write(t.resolve("_part=zz/stray.parquet"), "x")
    val full = agree(t, Some(0))
    assert(full.contains("_part=zz/stray.parquet"), full)
    agree(t, Some(0), lite = true)
  }
}
