package txlog.streaming

import java.nio.file.Path

import scala.jdk.CollectionConverters._

import org.apache.commons.io.FileUtils

import txlog.{ErrorClasses, SparkSuite}
import txlog.streaming.StreamRuns.{Outcome, drain, txlogError}

/** txlog's stream source against delta-spark's `DeltaSource` on the same tables, written by
  * delta-spark: the same options, each engine with its own checkpoint, drained with
  * Trigger.AvailableNow; the same batches (rows as multisets, empty batches aside) or a failure on
  * both sides (txlog's with the error class the case names). `make test` runs the tests declared
  * with `inTurn` in turn (one of each pair a day: the option runs, and each kind of change with and
  * without deletion vectors); `make test-breadth` runs them all.
  */
class StreamSourceParitySuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2

  private def append(path: String, from: Long, until: Long, files: Int = 1): Unit =
    spark
      .range(from, until)
      .toDF("id")
      .selectExpr("id", "cast(id % 3 as string) AS p")
      .repartition(files)
      .write
      .format("delta")
      .mode("append")
      .save(path)

  /** A table of `commits` appends of 10 rows, one file each, properties `props`. */
  private def table(name: String, commits: Int, props: Map[String, String] = Map.empty): String = {
    val path = tempDir(name).resolve("t").toString
    val settings = props.map { case (k, v) => s"'$k' = '$v'" }.mkString(", ")
    spark.sql(
      s"CREATE TABLE delta.`$path` (id BIGINT, p STRING) USING delta" +
        (if (props.isEmpty) "" else s" TBLPROPERTIES ($settings)")
    )
    (0 until commits).foreach(i => append(path, i * 10L, i * 10L + 10))
    path
  }

  /** Checkpoint directories of one case: delta-spark's and txlog's. */
  private final class Checkpoints(dir: Path) {
    val delta: String = dir.resolve("delta").toString
    val txlog: String = dir.resolve("txlog").toString

    /** Copies of both as they are now, for a second run with other options. */
    def copy(name: String): Checkpoints = {
      val to = dir.resolveSibling(dir.getFileName + "-" + name)
      Seq("delta", "txlog").foreach { e =>
        val from = dir.resolve(e).toFile
        if (from.exists()) FileUtils.copyDirectory(from, to.resolve(e).toFile)
      }
      new Checkpoints(to)
    }
  }

  private def checkpoints(name: String) = new Checkpoints(tempDir(name))

  /** One run of both engines: the same outcome, txlog's error of class `error` when it fails. */
  private def both(
      path: String,
      chk: Checkpoints,
      options: Map[String, String] = Map.empty,
      error: Option[String] = None
  ): Outcome = {
    val d = drain(spark, "delta", path, chk.delta, options)
    val t = drain(spark, "txlog", path, chk.txlog, options)
    (d, t) match {
      case (Right(db), Right(tb)) =>
        assert(tb == db, s"batches of $options")
        assert(error.isEmpty, s"both read what txlog was to refuse with $error")
      case (Left(_), Left(e)) =>
        val found = txlogError(e).map(_.errorClass)
        assert(error.nonEmpty && found == error, s"txlog's error $e ($options)")
      case _ => fail(s"delta-spark: $d; txlog: $t ($options)")
    }
    t
  }

  inTurn("the initial snapshot, then later commits, in batches of maxFilesPerTrigger") {
    val path = table("snapshot", 5)
    for (limit <- Seq(None, Some("2"), Some("1"))) {
      val options = limit.map("maxFilesPerTrigger" -> _).toMap
      val chk = checkpoints(s"snapshot-$limit")
      val rows = spark.read.format("delta").load(path).count()
      val first = both(path, chk, options).toOption.get
      assert(first.flatten.size == rows)
      limit.foreach(n => assert(first.forall(_.size <= n.toInt * 10) && first.size > 1))
      // commits after the snapshot: one of two files, one of one
      append(path, 100, 120, files = 2)
      append(path, 200, 205)
      val second = both(path, chk, options)
      assert(second.toOption.get.flatten.size == 25)
    }
  }

  inTurn("startingVersion, startingTimestamp, latest and maxBytesPerTrigger") {
    val path = table("starting", 5)
    val history = spark.sql(s"DESCRIBE HISTORY delta.`$path`").collect()
    val at3 = history.find(_.getAs[Long]("version") == 3).get.getAs[java.sql.Timestamp]("timestamp")
    val cases = Seq(
      // from the table's creation: its first commit's metadata is no schema change
      Map("startingVersion" -> "0", "maxFilesPerTrigger" -> "2"),
      Map("startingVersion" -> "2"),
      Map("startingVersion" -> "3", "maxFilesPerTrigger" -> "1"),
      Map("startingTimestamp" -> at3.toString),
      Map("startingVersion" -> "latest"),
      Map("maxBytesPerTrigger" -> "1b"),
      Map("maxBytesPerTrigger" -> "100g", "maxFilesPerTrigger" -> "3")
    )
    for ((options, i) <- cases.zipWithIndex) {
      val chk = checkpoints(s"starting-$i")
      both(path, chk, options)
      append(path, 1000L + i * 10, 1005L + i * 10)
      both(path, chk, options)
    }
    // a version after the latest: an error on both sides
    both(
      path,
      checkpoints("starting-late"),
      Map("startingVersion" -> "99"),
      Some("VERSION_NOT_FOUND")
    )
  }

  for (dvs <- Seq(true, false)) {
    inTurn(
      s"deletes and updates: failures, ignoreDeletes, ignoreChanges, skipChangeCommits (dvs $dvs)"
    ) {
      val path = table(s"changes-$dvs", 3, Map("delta.enableDeletionVectors" -> dvs.toString))
      // rows deleted before the stream starts: its initial snapshot reads the files without them
      spark.sql(s"DELETE FROM delta.`$path` WHERE id IN (1, 2)")
      val chk = checkpoints(s"changes-$dvs")
      both(path, chk)
      val afterSnapshot = chk.copy("update")
      // an update of some rows (a file rewritten, or a deletion vector and a new file)
      spark.sql(s"UPDATE delta.`$path` SET p = 'u' WHERE id = 5")
      append(path, 50, 55)
      val update = Map(
        "none" -> Some(ErrorClasses.StreamingSourceUpdate),
        "ignoreDeletes" -> Some(ErrorClasses.StreamingSourceUpdate),
        "ignoreChanges" -> None,
        "skipChangeCommits" -> None
      )
      for ((option, error) <- update) {
        val options = if (option == "none") Map.empty[String, String] else Map(option -> "true")
        both(path, afterSnapshot.copy(option), options, error)
      }
      // a whole file deleted (every row of the last append)
      val afterUpdate = afterSnapshot.copy("delete")
      both(path, afterUpdate, Map("skipChangeCommits" -> "true"))
      // a batch without the update last: a restart runs its last batch again (delta-spark checks
      // it with the new run's options)
      append(path, 55, 57)
      both(path, afterUpdate, Map("skipChangeCommits" -> "true"))
      spark.sql(s"DELETE FROM delta.`$path` WHERE id >= 50")
      append(path, 60, 65)
      val delete = Map(
        "none" -> Some(ErrorClasses.StreamingSourceDelete),
        "ignoreDeletes" -> None,
        "ignoreChanges" -> None,
        "skipChangeCommits" -> None
      )
      for ((option, error) <- delete) {
        val options = if (option == "none") Map.empty[String, String] else Map(option -> "true")
        both(path, afterUpdate.copy(option), options, error)
      }
    }
  }

  test("a schema change fails the stream at its version; a restart reads with the new schema") {
    val path = table("schema", 2)
    val chk = checkpoints("schema")
    val runs = Seq("delta" -> chk.delta, "txlog" -> chk.txlog).map { case (format, dir) =>
      format -> StreamRuns.running(spark, format, path, dir)
    }
    runs.foreach(_._2._1.processAllAvailable())
    spark.sql(s"ALTER TABLE delta.`$path` ADD COLUMNS (x STRING)")
    spark.sql(s"INSERT INTO delta.`$path` VALUES (70, '1', 'new')")
    val errors = runs.map { case (format, (q, _)) =>
      format -> intercept[Throwable](q.processAllAvailable())
    }.toMap
    assert(
      txlogError(errors("txlog"))
        .map(_.errorClass)
        .contains(ErrorClasses.StreamingSourceSchemaChanged),
      errors
    )
    assert(txlogError(errors("txlog")).flatMap(_.version).contains(3L))
    assert(runs.map(_._2._2.size) == Seq(1, 1), "the snapshot's batch on both sides")
    val restarted = both(path, chk)
    assert(restarted.toOption.get.flatten == Seq("{70, 1, new}"))
    // a property change is no schema change
    spark.sql(s"ALTER TABLE delta.`$path` SET TBLPROPERTIES ('k' = 'v')")
    spark.sql(s"INSERT INTO delta.`$path` VALUES (71, '2', 'newer')")
    both(path, chk)
  }

  test("partitioned tables with column mapping") {
    val path = tempDir("mapped").resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$path` (id BIGINT, p STRING) USING delta PARTITIONED BY (p) " +
        "TBLPROPERTIES ('delta.columnMapping.mode' = 'name')"
    )
    (0 until 3).foreach(i => append(path, i * 10L, i * 10L + 10))
    val chk = checkpoints("mapped")
    both(path, chk, Map("maxFilesPerTrigger" -> "2"))
    spark.sql(s"ALTER TABLE delta.`$path` RENAME COLUMN id TO key")
    spark.sql(s"INSERT INTO delta.`$path` VALUES (100, '1')")
    // a rename: the files before it cannot be streamed with the new names, on both sides
    both(path, chk, error = Some(ErrorClasses.StreamingSourceSchemaChanged))
  }

  // false first: the day that streams deletes and updates with vectors streams this without
  for (dvs <- Seq(false, true)) {
    inTurn(
      s"the change data feed as a stream: the snapshot's inserts, then every change (dvs $dvs)"
    ) {
      val props =
        Map("delta.enableChangeDataFeed" -> "true", "delta.enableDeletionVectors" -> dvs.toString)
      val path = table(s"cdf-$dvs", 2, props)
      val cdf = Map("readChangeFeed" -> "true")
      val chk = checkpoints(s"cdf-$dvs")
      both(path, chk, cdf)
      spark.sql(s"UPDATE delta.`$path` SET p = 'u' WHERE id IN (1, 11)")
      spark.sql(s"DELETE FROM delta.`$path` WHERE id = 2")
      append(path, 30, 33)
      spark.sql(
        s"MERGE INTO delta.`$path` AS t USING (SELECT 3L AS id, 'm' AS p UNION ALL " +
          "SELECT 40L, 'n') AS s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * " +
          "WHEN NOT MATCHED THEN INSERT *"
      )
      both(path, chk, cdf + ("maxFilesPerTrigger" -> "1"))
      both(path, checkpoints(s"cdf-from-$dvs"), cdf + ("startingVersion" -> "3"))
    }
  }

  test("startingVersion latest: a first batch run again after a restart reads its commits") {
    val path = table("latest-restart", 1)
    val dir = tempDir("latest-chk")
    val chk = dir.toString
    val (q, batches) =
      StreamRuns.running(spark, "txlog", path, chk, Map("startingVersion" -> "latest"))
    q.processAllAvailable()
    append(path, 50, 53)
    q.processAllAvailable()
    q.stop()
    val read = batches.asScala.toSeq.sortBy(_._1).map(_._2).filter(_.nonEmpty)
    assert(read.toSeq == Seq(Seq("{50, 2}", "{51, 0}", "{52, 1}")))
    // the batch that read them, as if the process died before Spark recorded it done
    val last = batches.asScala.map(_._1).max
    new java.io.File(s"$chk/commits/$last").delete()
    new java.io.File(s"$chk/commits/.$last.crc").delete()
    append(path, 60, 61)
    val again = drain(spark, "txlog", path, chk, Map("startingVersion" -> "latest"))
    assert(again.toOption.get.flatten.sorted == Seq("{50, 2}", "{51, 0}", "{52, 1}", "{60, 0}"))
  }

  test("txlog's checks: an unknown option, an offset of another table, a schema given") {
    val path = table("checks", 2)
    val unknown = intercept[Throwable](
      drain(spark, "txlog", path, tempDir("chk-u").toString, Map("maxFiles" -> "1"))
    )
    assert(txlogError(unknown).map(_.errorClass).contains("INVALID_ARGUMENT"), unknown)
    val chk = tempDir("chk-other").toString
    assert(drain(spark, "txlog", path, chk).isRight)
    val other = table("checks-other", 1)
    val moved = drain(spark, "txlog", other, chk)
    assert(
      moved.left.toOption
        .flatMap(txlogError)
        .map(_.errorClass)
        .contains(ErrorClasses.StreamingOffsetInvalid),
      moved
    )
    // a schema given: refused when the query starts
    val given = spark.readStream.format("txlog").schema("id INT").load(path)
    val e = drain(given, tempDir("chk-schema").toString).left.toOption.orNull
    assert(txlogError(e).map(_.errorClass).contains(ErrorClasses.SchemaMismatch), e)
    // commits the stream has yet to read, cleaned away (as metadata cleanup would, after a
    // checkpoint): MISSING_LOG_FILES naming the version, nothing read past it
    val lagging = tempDir("chk-lag").toString
    assert(drain(spark, "txlog", path, lagging).isRight)
    (2 until 5).foreach(i => append(path, 100L + i * 10, 105L + i * 10))
    val read = txlog.DeltaLog.forTable(spark, path).snapshot().version - 2
    val at = txlog.DeltaLog.forTable(spark, path).checkpoint().version
    val log = java.nio.file.Paths.get(path, "_delta_log")
    (0L until at).foreach(v => java.nio.file.Files.delete(log.resolve(f"$v%020d.json")))
    val gone = drain(spark, "txlog", path, lagging).left.toOption.flatMap(txlogError)
    assert(gone.map(_.errorClass).contains(ErrorClasses.MissingLogFiles), gone)
    assert(gone.flatMap(_.version).contains(read), gone)
  }

  test("a restart before the first batch was done reads its files, the table grown since") {
    val path = table("restart-first", 3)
    val chk = checkpoints("restart-first")
    val options = Map("maxFilesPerTrigger" -> "1")
    val first = both(path, chk, options).toOption.get
    // as if the query died after recording batch 0 and before finishing it
    Seq(chk.delta, chk.txlog).foreach { dir =>
      val listed = (sub: String) => Option(new java.io.File(dir, sub).listFiles()).toSeq.flatten
      listed("commits").foreach(FileUtils.forceDelete)
      listed("offsets").filterNot(f => f.getName == "0" || f.getName == ".0.crc").foreach {
        FileUtils.forceDelete
      }
    }
    // a later version: the stream's start is the one batch 0 read from
    append(path, 300, 305)
    val again = both(path, chk, options).toOption.get
    assert(
      again.flatten.sorted == (first.flatten ++ (300 until 305).map(i => s"{$i, ${i % 3}}")).sorted
    )
  }
}
