package txlog.checkpoint

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import scala.concurrent.{Await, Future}
import scala.concurrent.ExecutionContext.Implicits.global
import scala.concurrent.duration._

import org.apache.spark.sql.delta.TxlogReferenceAccess
import org.apache.spark.sql.types.{IntegerType, StructType}

import txlog.{DeltaLog, Fixtures, Oracle, SparkSuite, TxlogException}
import txlog.log.{LogListing, LogSegment}
import txlog.protocol.CheckpointNaming
import txlog.protocol.FileNames

/** Checkpoint content per the spec, `_last_checkpoint`, refusals, and faults: a writer dying before
  * or during publishing, a deleted part, and racing writers. The checks of content, the hint and
  * refusals run every time; the faults, the races and the variants take turns in `make test`
  * ([[txlog.testing.InTurn]]).
  */
class CheckpointWriterSuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn

  /** A delta-spark table with three commits (two appends and a delete) and `props`. */
  private def table(
      props: Map[String, String] = Map.empty,
      partitioned: Boolean = false
  ): String = {
    val dir = tempDir().resolve("t").toString
    val w = spark
      .range(0, 20)
      .selectExpr("id", "cast(id % 3 as int) as p", "'x' as s")
      .repartition(4)
      .write
      .format("delta")
    val opts = props.map { case (k, v) => s"'$k' = '$v'" }.mkString(", ")
    spark.sql(
      s"CREATE TABLE delta.`$dir` (id LONG, p INT, s STRING) USING delta " +
        (if (partitioned) "PARTITIONED BY (p) " else "") +
        (if (opts.nonEmpty) s"TBLPROPERTIES ($opts)" else "")
    )
    w.mode("append").save(dir)
    spark
      .range(20, 30)
      .selectExpr("id", "cast(id % 3 as int) as p", "'y' as s")
      .write
      .format("delta")
      .mode("append")
      .save(dir)
    spark.sql(s"DELETE FROM delta.`$dir` WHERE id < 5")
    dir
  }

  private def logDir(dir: String) = new File(dir, "_delta_log")
  private def checkpointFiles(dir: String): Seq[String] =
    logDir(dir).listFiles().map(_.getName).filter(_.contains(".checkpoint.")).toSeq.sorted
  private def staging(dir: String): Seq[String] =
    logDir(dir).listFiles().map(_.getName).filter(_.startsWith(".txlog-staging")).toSeq

  /** Writes a checkpoint whose writer dies at stage `at`. */
  private def killedAt(at: String, dir: String, kind: String, o: Map[String, String]) =
    CheckpointWriter.write(
      spark,
      DeltaLog.forTable(spark, dir).snapshot(),
      Some(kind),
      o,
      WriteObserver(s => if (s == at) throw new IllegalStateException(s"killed at $s"))
    )

  private def agreesWith(dir: String, before: txlog.SnapshotView): Unit = {
    val (ours, ref) = Oracle.both(spark, dir)
    assert(ours.get === before)
    assert(ref.get === before)
  }

  test("checkpoint content follows the spec: no commitInfo, lean removes, typed stats") {
    val dir = table(
      Map(
        "delta.checkpoint.writeStatsAsStruct" -> "true",
        "delta.checkpoint.writeStatsAsJson" -> "false"
      ),
      partitioned = true
    )
    val before = Oracle.txlog(spark, dir, None)
    val r = DeltaLog.forTable(spark, dir).checkpoint()
    assert(r.kind === "classic" && r.files.size === 1)
    assert(r.numAddFiles === before.live.size && r.numRemoveFiles === before.tombstones.size)
    assert(r.numRemoveFiles > 0, "the delete left tombstones")
    val cp = spark.read.parquet(r.files.head)
    assert(!cp.columns.contains("commitInfo") && !cp.columns.contains("cdc"))
    val add = cp.schema("add").dataType.asInstanceOf[StructType]
    val remove = cp.schema("remove").dataType.asInstanceOf[StructType]
    assert(!add.fieldNames.contains("stats"), "writeStatsAsJson=false omits stats")
    assert(
      add("partitionValues_parsed").dataType ===
        new StructType().add("p", IntegerType)
    )
    val statsParsed = add("stats_parsed").dataType.asInstanceOf[StructType]
    assert(statsParsed.fieldNames.toSeq.take(1) === Seq("numRecords"))
    assert(!remove.fieldNames.contains("stats") && !remove.fieldNames.contains("tags"))
    val rows = cp
      .where("add is not null")
      .selectExpr(
        "add.partitionValues_parsed.p",
        "add.partitionValues['p']",
        "add.stats_parsed.numRecords"
      )
      .collect()
    assert(rows.nonEmpty && rows.forall(r => r.getInt(0).toString == r.getString(1)))
    assert(rows.map(_.getLong(2)).sum === 25L)
    assert(cp.where("metaData is not null").count() === 1)
    assert(cp.where("protocol is not null").count() === 1)
    agreesWith(dir, before)
  }

  inTurn("under column mapping, typed stats and partition values use physical names") {
    val dir = table(
      Map(
        "delta.columnMapping.mode" -> "name",
        "delta.checkpoint.writeStatsAsStruct" -> "true"
      ),
      partitioned = true
    )
    val before = Oracle.txlog(spark, dir, None)
    val md = DeltaLog.forTable(spark, dir).snapshot().metadata
    def physical(name: String) =
      md.schema(name).metadata.getString("delta.columnMapping.physicalName")
    assert(physical("p") != "p", "the table maps its columns")
    val r = DeltaLog.forTable(spark, dir).checkpoint()
    val add = spark.read.parquet(r.files.head).schema("add").dataType.asInstanceOf[StructType]
    assert(
      add("partitionValues_parsed").dataType === new StructType().add(physical("p"), IntegerType)
    )
    val minValues = add("stats_parsed").dataType.asInstanceOf[StructType]("minValues")
    assert(
      minValues.dataType.asInstanceOf[StructType].fieldNames.toSet ===
        Set(physical("id"), physical("s"))
    )
    agreesWith(dir, before)
  }

  inTurn("transactions expire per delta.setTransactionRetentionDuration, as in delta-spark") {
    val dir = table()
    def append(app: String, v: Long) = spark
      .range(1)
      .selectExpr("id", "1 as p", "'t' as s")
      .write
      .format("delta")
      .mode("append")
      .option("txnAppId", app)
      .option("txnVersion", v)
      .save(dir)
    append("old-app", 7L)
    append("other-app", 3L)
    assert(Oracle.txlog(spark, dir, None).txns === Map("old-app" -> 7L, "other-app" -> 3L))
    spark.sql(
      s"ALTER TABLE delta.`$dir` SET TBLPROPERTIES " +
        "('delta.setTransactionRetentionDuration' = 'interval 1 seconds')"
    )
    Thread.sleep(1500)
    val before = Oracle.txlog(spark, dir, None)
    assert(before.txns.isEmpty, "both transactions are older than a second")
    assert(Oracle.reference(spark, dir, None).txns === before.txns)
    val r = DeltaLog.forTable(spark, dir).checkpoint()
    assert(spark.read.parquet(r.files.head).where("txn is not null").count() === 0)
    agreesWith(dir, before)
  }

  test("expired tombstones are left out of the checkpoint") {
    val dir = table(Map("delta.deletedFileRetentionDuration" -> "interval 0 seconds"))
    Thread.sleep(5)
    val r = DeltaLog.forTable(spark, dir).checkpoint()
    assert(r.numRemoveFiles === 0)
    assert(spark.read.parquet(r.files.head).where("remove is not null").count() === 0)
  }

  test("_last_checkpoint is written with the spec checksum and delta-spark accepts it") {
    val dir = table()
    val r = DeltaLog
      .forTable(spark, dir)
      .checkpoint(kind = Some("multipart"), options = Map("parts" -> "2"))
    val json = new String(Files.readAllBytes(logDir(dir).toPath.resolve("_last_checkpoint")), UTF_8)
    // The spec: size is the number of actions (rows) in the checkpoint, numOfAddFiles its adds.
    val rows = spark.read.parquet(r.files: _*)
    val (actions, adds) = (rows.count(), rows.where("add is not null").count())
    assert(r.files.size === 2 && actions > adds && adds > 0)
    assert(
      TxlogReferenceAccess.lastCheckpoint(spark, dir) === Some((3L, actions, Some(2), Some(adds)))
    )
    val (stored, computed) = TxlogReferenceAccess.lastCheckpointChecksums(json)
    assert(stored === Some(computed))
    assert(TxlogReferenceAccess.lastCheckpointVersion(spark, dir) === Some(r.version))
  }

  inTurn("_last_checkpoint never moves back to an older checkpoint") {
    val dir = table()
    val log = DeltaLog.forTable(spark, dir)
    log.checkpoint()
    log.checkpoint(version = Some(1L))
    assert(TxlogReferenceAccess.lastCheckpoint(spark, dir).map(_._1) === Some(3L))
    assert(
      checkpointFiles(dir) === Seq(
        "00000000000000000001.checkpoint.parquet",
        "00000000000000000003.checkpoint.parquet"
      )
    )
    agreesWith(dir, Oracle.txlog(spark, dir, None))
    assert(Oracle.txlog(spark, dir, Some(1L)) === Oracle.reference(spark, dir, Some(1L)))
  }

  inTurn("a writer killed before publishing leaves nothing a reader would use") {
    val dir = table()
    val before = Oracle.txlog(spark, dir, None)
    Seq("classic" -> Map.empty[String, String], "multipart" -> Map("parts" -> "3"))
      .foreach { case (kind, o) =>
        val e = intercept[IllegalStateException](killedAt("staged", dir, kind, o))
        assert(e.getMessage.contains("killed"))
        assert(checkpointFiles(dir).isEmpty && staging(dir).isEmpty)
        assert(!new File(logDir(dir), "_last_checkpoint").exists())
      }
    agreesWith(dir, before)
  }

  inTurn("a multi-part writer killed after its first part: the partial checkpoint is ignored") {
    val dir = table()
    val before = Oracle.txlog(spark, dir, None)
    intercept[IllegalStateException](
      killedAt("published part 1", dir, "multipart", Map("parts" -> "3"))
    )
    assert(
      checkpointFiles(dir) === Seq("00000000000000000003.checkpoint.0000000001.0000000003.parquet")
    )
    val log = DeltaLog.forTable(spark, dir)
    assert(LogSegment.build(LogListing.list(log.table), None).checkpoint.isEmpty)
    assert(TxlogReferenceAccess.checkpointVersionUsed(spark, dir) === -1L)
    agreesWith(dir, before)
  }

  inTurn("a deleted part of a multi-part checkpoint: readers fall back to the commits") {
    val dir = table()
    val before = Oracle.txlog(spark, dir, None)
    val r = DeltaLog
      .forTable(spark, dir)
      .checkpoint(kind = Some("multipart"), options = Map("parts" -> "3"))
    assert(r.files.size === 3)
    assert(new File(new java.net.URI(r.files(1))).delete())
    agreesWith(dir, before)
  }

  inTurn("racing writers of the same checkpoint leave a valid one") {
    val dir = table()
    val before = Oracle.txlog(spark, dir, None)
    // The spec's names of version 3's checkpoints.
    val specNames = Map(
      "classic" -> Seq("00000000000000000003.checkpoint.parquet"),
      "multipart" -> (1 to 3).map(i =>
        f"00000000000000000003.checkpoint.$i%010d.0000000003.parquet"
      )
    )
    var onDisk = Set.empty[String]
    Seq("classic" -> Map.empty[String, String], "multipart" -> Map("parts" -> "3"))
      .foreach { case (kind, o) =>
        val writers = (1 to 2).map(_ =>
          Future(DeltaLog.forTable(spark, dir).checkpoint(kind = Some(kind), options = o))
        )
        val results = writers.map(Await.result(_, 5.minutes))
        // Both writers report files that exist, and exactly the spec's names for version 3
        // are on disk: nothing half-written or duplicated is left.
        results.foreach(r => assert(r.files.forall(f => new File(new java.net.URI(f)).exists())))
        onDisk ++= specNames(kind)
        assert(checkpointFiles(dir).toSet === onDisk)
        assert(TxlogReferenceAccess.checkpointVersionUsed(spark, dir) === 3L)
        assert(staging(dir).isEmpty)
        agreesWith(dir, before)
      }
    val segment = LogSegment.build(LogListing.list(DeltaLog.forTable(spark, dir).table), None)
    assert(segment.checkpoint.map(_.version) === Some(3L))
  }

  test("kinds the spec forbids on a table are refused, and nothing is written") {
    val plain = table()
    val e1 =
      intercept[TxlogException](DeltaLog.forTable(spark, plain).checkpoint(kind = Some("v2")))
    assert(e1.errorClass === "CHECKPOINT_KIND_NOT_ALLOWED")
    val e2 = intercept[TxlogException](
      DeltaLog
        .forTable(spark, plain)
        .checkpoint(kind = Some("multipart"), options = Map("parts" -> "1"))
    )
    assert(e2.errorClass === "INVALID_ARGUMENT" && e2.problem.contains("parts"))
    val e3 =
      intercept[TxlogException](DeltaLog.forTable(spark, plain).checkpoint(kind = Some("zip")))
    assert(e3.errorClass === "INVALID_ARGUMENT")
    assert(checkpointFiles(plain).isEmpty)
    assume(Fixtures.available, Fixtures.skipMessage)
    val v2 = Fixtures.copy("golden/v2-checkpoint-parquet", tempDir()).toString
    val existing = checkpointFiles(v2)
    val e4 =
      intercept[TxlogException](DeltaLog.forTable(spark, v2).checkpoint(kind = Some("multipart")))
    assert(e4.errorClass === "CHECKPOINT_KIND_NOT_ALLOWED")
    assert(checkpointFiles(v2) === existing)
  }

  test("tables with writer features txlog does not support are refused by name") {
    val dir = table()
    Files.write(
      logDir(dir).toPath.resolve(FileNames.commitName(4)),
      ("""{"protocol":{"minReaderVersion":1,"minWriterVersion":7,""" +
        """"writerFeatures":["appendOnly","futureWriterFeature"]}}""" + "\n").getBytes(UTF_8)
    )
    val e = intercept[TxlogException](DeltaLog.forTable(spark, dir).checkpoint())
    assert(e.errorClass === "UNSUPPORTED_WRITER_FEATURES")
    assert(e.problem.contains("futureWriterFeature") && !e.problem.contains("appendOnly"))
    assert(checkpointFiles(dir).isEmpty)
  }

  inTurn("a checkpoint of a past version, and time travel over it") {
    val dir = table()
    val r = DeltaLog.forTable(spark, dir).checkpoint(version = Some(2L))
    assert(r.version === 2L)
    (1L to 3L).foreach { v =>
      assert(Oracle.txlog(spark, dir, Some(v)) === Oracle.reference(spark, dir, Some(v)))
    }
    val seg = LogSegment.build(LogListing.list(DeltaLog.forTable(spark, dir).table), Some(3L))
    assert(seg.checkpoint.map(c => (c.version, c.naming)) === Some((2L, CheckpointNaming.Classic)))
  }

}
