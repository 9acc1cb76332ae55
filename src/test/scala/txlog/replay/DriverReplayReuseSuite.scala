package txlog.replay

import java.nio.file.{Files, Paths}

import org.apache.spark.sql.Row

import txlog.{DeltaLog, Oracle, SparkSuite, TxlogException}

/** What a load read on the driver is not read again: an update of a snapshot whose tail the driver
  * reconciled reads only the new commits and lays them over its overlay ([[Tail.readOnto]]), and a
  * checkpoint reader made to keep its files gives its load's file actions to the one pass that asks
  * for them ([[DriverCheckpoint.of]] with `keepFiles`). Each gives what a fresh load gives, and an
  * update what delta-spark's snapshot of the same version holds (the oracle).
  */
class DriverReplayReuseSuite extends SparkSuite {

  private def append(t: String, n: Int): Unit =
    spark.range(n).repartition(2).write.format("delta").mode("append").save(t)

  /** A table (written by delta-spark) with removes and adds in a checkpoint at version 2 (txlog's),
    * and two commits after it.
    */
  private def table(): String = {
    val t = tempDir().resolve("t").toString
    append(t, 4)
    spark.range(6).repartition(3).write.format("delta").mode("overwrite").save(t)
    append(t, 2)
    DeltaLog.forTable(spark, t).checkpoint()
    append(t, 3)
    append(t, 1)
    t
  }

  private def paths(s: txlog.Snapshot): Seq[String] =
    s.allFiles.select("path").collect().map(_.getString(0)).toSeq.sorted

  private def summary(s: txlog.Snapshot): (Long, Long, Long, Long) =
    (s.version, s.numFiles, s.sizeInBytes, s.numTombstones)

  test("an update reads only the new commits, laid over the earlier snapshot's overlay") {
    val t = table()
    val log = DeltaLog.forTable(spark, t)
    val first = log.snapshot()
    val overlay = first.driverFileActions.map(_.overlay)
    assert(overlay.exists(_.size > 0), "the tail was not reconciled on the driver")
    // a commit without file actions: the same overlay, so the checkpoint's tally still counts
    log.startTransaction().commit("NO FILES")
    val second = log.update()
    assert(second.version === first.version + 1)
    assert(second.driverFileActions.map(_.overlay).exists(o => overlay.exists(_ eq o)))
    val fresh2 = DeltaLog.forTable(spark, t).snapshot()
    assert(summary(second) === summary(fresh2))
    assert(paths(second) === paths(fresh2))
    assert(Oracle.view(spark, second) === Oracle.reference(spark, t, None)) // delta-spark's
    // commits with adds and removes: laid over it, as a fresh load reconciles them
    append(t, 2)
    spark.range(5).repartition(2).write.format("delta").mode("overwrite").save(t)
    val third = log.update()
    assert(!third.driverFileActions.map(_.overlay).exists(o => overlay.exists(_ eq o)))
    val fresh3 = DeltaLog.forTable(spark, t).snapshot()
    assert(summary(third) === summary(fresh3))
    assert(Oracle.view(spark, third) === Oracle.reference(spark, t, None))
    assert(paths(third) === paths(fresh3))
    assert(third.driverFileActions.get.overlay.size === fresh3.driverFileActions.get.overlay.size)
    assert(third.driverFileActions.get.overlay.bytes === fresh3.driverFileActions.get.overlay.bytes)
  }

  /** The checkpoint's lean actions `reader` gives against `overlay`, as sortable text. */
  private def actions(reader: DriverCheckpoint, overlay: FileOverlay): Seq[String] = {
    val seen = Seq.newBuilder[String]
    val read = reader.eachFile(Nil, overlay) { (add: Row, remove: Row) =>
      seen += (if (add != null) s"add ${add.getString(0)} ${add.getLong(1)}"
               else s"remove ${remove.getString(0)} ${remove.get(1)}")
    }
    assert(read.isDefined)
    seen.result().sorted
  }

  /** The oracle for [[actions]]: the checkpoint at `cp` read by Spark's parquet reader, less the
    * paths the commits after it add or remove (a table of plain paths, without deletion vectors).
    */
  private def sparkActions(t: String, cp: Long): Seq[String] = {
    val log = Paths.get(t, "_delta_log")
    val after = Files.list(log).iterator()
    val commits = Seq.newBuilder[String]
    while (after.hasNext) {
      val f = after.next().getFileName.toString
      if (f.endsWith(".json") && f.stripSuffix(".json").toLong > cp)
        commits += log.resolve(f).toString
    }
    val touched = spark.read
      .schema("add struct<path: string>, remove struct<path: string>")
      .json(commits.result(): _*)
      .selectExpr("coalesce(add.path, remove.path)")
      .collect()
      .flatMap(r => Option(r.getString(0)))
      .toSet
    val file = log.resolve(f"$cp%020d.checkpoint.parquet").toString
    spark.read
      .parquet(file)
      .selectExpr("add.path", "add.size", "remove.path", "remove.deletionTimestamp")
      .collect()
      .flatMap { r =>
        if (!r.isNullAt(0)) Some(r.getString(0) -> s"add ${r.getString(0)} ${r.getLong(1)}")
        else if (!r.isNullAt(2)) Some(r.getString(2) -> s"remove ${r.getString(2)} ${r.get(3)}")
        else None
      }
      .collect { case (path, text) if !touched(path) => text }
      .toSeq
      .sorted
  }

  test("a reader that keeps its files gives its load's actions to one pass, then reads again") {
    val t = table()
    val snapshot = DeltaLog.forTable(spark, t).snapshot()
    val (segment, overlay) = (snapshot.segment, snapshot.driverFileActions.get.overlay)
    val plain = DriverCheckpoint.of(spark, segment).get
    assert(plain.nonFileRows(overlay).isDefined)
    val expected = actions(plain, overlay)
    assert(expected.exists(_.startsWith("add ")) && expected.exists(_.startsWith("remove ")))
    assert(expected === sparkActions(t, segment.checkpointVersion))
    val keeping = DriverCheckpoint.of(spark, segment, keepFiles = true).get
    // a budget too small for its actions (the checkpoint's own budget stated apart: by default it
    // follows the replay budget)
    val tight = withConf(
      DriverBudgets.MaxReplayBytesConf -> "1000",
      DriverCheckpoint.MaxBytesConf -> (32L << 20).toString
    ) {
      DriverCheckpoint.of(spark, segment, keepFiles = true).get
    }
    val released = DriverCheckpoint.of(spark, segment, keepFiles = true).get
    Seq(keeping, tight, released).foreach(r => assert(r.nonFileRows(overlay).isDefined))
    released.releaseKept()
    // the checkpoint moved away: the kept actions are all the pass has
    val file = Paths.get(new java.net.URI(segment.checkpoint.get.files.head.file.path))
    val aside = file.resolveSibling("aside")
    Files.move(file, aside)
    try {
      assert(actions(keeping, overlay) === expected)
      // released after that pass (or when told); past its budget, a reader kept none: all read
      // the checkpoint again
      Seq(keeping, tight, released).foreach { r =>
        val e = intercept[TxlogException](actions(r, overlay))
        assert(e.errorClass === "LOG_READ_FAILED")
      }
    } finally Files.move(aside, file)
    assert(actions(tight, overlay) === expected)
  }
}
