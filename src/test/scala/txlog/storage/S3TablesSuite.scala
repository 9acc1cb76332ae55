package txlog.storage

import java.nio.file.Files

import scala.collection.mutable.ArrayBuffer
import scala.util.{Failure, Success, Try}

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.DataFrame

import txlog.{DeltaLog, Fixtures, Oracle, Refusal, SnapshotView, TxlogException}
import txlog.cleanup.MetadataCleanup
import txlog.config.TxlogConf
import txlog.log.{LastCheckpoint, LogListing, TablePath}
import txlog.protocol.{FileInfo, FileNames}
import txlog.replay.{LogLineReader, ReadPermits}

/** Fixture tables copied to a local S3 server and read and maintained through S3A: each snapshot on
  * `s3a://` agrees with txlog's answer on the local copy and with delta-spark's on `s3a://`; time
  * travel, checkpoints of every kind, checksums, log compaction, metadata cleanup and a commit work
  * there as on local disk. The fixtures are a selection of the ones [[txlog.FixtureAgreementSuite]]
  * reads in full (each S3 round trip costs time): checkpoint kinds, deletion vectors, column
  * mapping, keys with special characters, a corrupt hint, and a table both readers refuse. `make
  * test` checks golden/checkpoint and half of the others on S3, which half rotating by day
  * ([[txlog.testing.Breadth]]), and runs the heavier round trips in turn
  * ([[txlog.testing.InTurn]]); `make test-breadth` runs every one.
  */
class S3TablesSuite extends S3SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn
  private val bucket = "txlog-tables"

  /** A bucket whose S3A lists 4 keys a page, so that a listing takes several pages. */
  private val paged = "txlog-tables-paged"
  def buckets: Seq[String] = Seq(bucket, paged)
  override def suiteConf: Map[String, String] =
    Map(
      s"spark.hadoop.fs.s3a.bucket.$paged.paging.maximum" -> "4",
      s"spark.hadoop.fs.s3a.bucket.$paged.connection.maximum" -> "8"
    )

  private val tables = Seq(
    "golden/checkpoint",
    "golden/multi-part-checkpoint",
    "golden/v2-checkpoint-parquet",
    "golden/dv-partitioned-with-checkpoint",
    "golden/data-reader-escaped-chars",
    "golden/table-with-columnmapping-mode-name",
    "golden/corrupted-last-checkpoint",
    "golden/time-travel-start-start20-start40",
    "golden/versions-not-contiguous"
  ).filter(t => Fixtures.tables.contains(t))

  private def s3Path(name: String) = s"s3a://$bucket/$name"

  override def beforeAll(): Unit = {
    super.beforeAll()
    tables.foreach(t => copyFixture(t, bucket, t))
    // Without any put-if-absent (an S3A on the AWS SDK v1) txlog writes to S3 only in
    // single-writer mode (S3ObjectStoreSuite shows the refusal otherwise); this suite writes one
    // writer at a time, so it opts in there. Spark 4.0's S3A (3.4.1) takes the SDK's conditional
    // PUT.
    if (!atomicPut(bucket)) spark.conf.set(StorageConf.SingleWriterKey, "true")
  }

  if (!Fixtures.available) test("tables on S3")(cancel(Fixtures.skipMessage))

  /** `v` with every file path made relative to the table root `root`, so that answers read from two
    * places compare.
    */
  private def relative(v: SnapshotView, root: String): SnapshotView = {
    def rel(p: String) = { assert(p.startsWith(root + "/"), p); p.stripPrefix(root + "/") }
    v.copy(
      live = v.live.map { case (p, dv, size, parts) => (rel(p), dv, size, parts) },
      tombstones = v.tombstones.map { case (p, dv) => (rel(p), dv) }
    )
  }

  private def rootOf(path: String) = DeltaLog.forTable(spark, path).tablePath

  /** txlog on S3, delta-spark on S3 and txlog on the local fixture give one answer, or all three
    * refuse for the same reason.
    */
  private def assertAgree(name: String, s3: String, version: Option[Long] = None): Unit = {
    val (ours, ref) = Oracle.both(spark, s3, version)
    val local = Try(Oracle.txlog(spark, Fixtures.path(name), version))
    val what = s"$name${version.fold("")(v => s" v$v")}"
    (ours, ref, local) match {
      case (Success(o), Success(r), Success(l)) =>
        assert(o === r, what)
        assert(relative(o, rootOf(s3)) === relative(l, rootOf(Fixtures.path(name))), what)
      case (Failure(o), Failure(r), Failure(l: TxlogException)) =>
        Refusal.assertSame(o, r, what)
        assert(o.asInstanceOf[TxlogException].errorClass === l.errorClass, what)
      case _ => fail(s"$what: txlog on S3 $ours, delta-spark $ref, txlog locally $local")
    }
  }

  txlog.testing.Breadth.share(tables, 2, suiteName)(_ == "golden/checkpoint").foreach { name =>
    test(s"the snapshot on S3 agrees with the local one and with delta-spark: $name") {
      assertAgree(name, s3Path(name))
    }
  }

  inTurn(
    "commits read by tasks, 3 files at a time, and by the driver 3 at a time: the same answer"
  ) {
    assume(Fixtures.available, Fixtures.skipMessage)
    val keys = Seq(TxlogConf.ReplayReadThreads.key, TxlogConf.ReplayMaxLocalReadBytes.key)
    spark.conf.set(keys.head, "3")
    try {
      Seq("1048576", "0").foreach { local =>
        spark.conf.set(keys(1), local)
        Seq("golden/checkpoint", "golden/time-travel-start-start20-start40")
          .filter(tables.contains)
          .foreach(name => assertAgree(name, s3Path(name)))
      }
    } finally keys.foreach(spark.conf.unset)
  }

  inTurn("time travel on S3: versions agree with the local answers, timestamps with delta-spark") {
    val name = "golden/time-travel-start-start20-start40"
    assume(tables.contains(name), Fixtures.skipMessage)
    (0L to 2L).foreach(v => assertAgree(name, s3Path(name), Some(v)))
    // Commit times on S3 are the objects' upload times: both readers must date them alike.
    Oracle.timestampAnswers(spark, s3Path(name)).foreach { case (ts, ours, theirs) =>
      (ours, theirs) match {
        case (Success(a), Success(b)) => assert(a === b, s"at $ts")
        case (Failure(a), Failure(b)) => Refusal.assertSame(a, b, s"at $ts")
        case _                        => fail(s"at $ts: txlog $ours, delta-spark $theirs")
      }
    }
    val cp = "golden/checkpoint"
    Seq(9L, 12L).foreach(v => assertAgree(cp, s3Path(cp), Some(v)))
  }

  /** Adds of unpartitioned files, as a writer would commit them. */
  private def adds(paths: String*): DataFrame = {
    val session = spark
    import session.implicits._
    paths
      .map(p => (p, 10L, Map.empty[String, String], 1700000000000L, true))
      .toDF("path", "size", "partitionValues", "modificationTime", "dataChange")
  }

  private def logKeys(prefix: String): Seq[String] =
    s3.keys(bucket, s"$prefix/_delta_log/").map(_.stripPrefix(s"$prefix/_delta_log/"))

  inTurn("a V2 checkpoint on S3: sidecars in _sidecars, then the UUID-named file") {
    val name = "golden/v2-checkpoint-parquet"
    assume(tables.contains(name), Fixtures.skipMessage)
    val prefix = "maint/v2"
    val path = copyFixture(name, bucket, prefix)
    val cp = DeltaLog.forTable(spark, path).checkpoint(kind = Some("v2"))
    assert(cp.sidecars.nonEmpty && cp.files.size === 1, cp)
    val keys = logKeys(prefix)
    cp.sidecars.foreach(f => assert(keys.contains(s"_sidecars/${f.split('/').last}"), keys))
    assert(keys.contains(cp.files.head.split('/').last), keys)
    assert(!keys.exists(_.startsWith(".txlog-staging")), keys)
    val (ours, ref) = Oracle.both(spark, path)
    assert(ours.get === ref.get && ref.get.version === cp.version)
  }

  inTurn(
    "vacuum on s3a keeps live files the log names s3:// and s3n://; delta-spark deletes no more"
  ) {
    val prefix = "vacuum/t"
    val path = s"s3a://$bucket/$prefix"
    DeltaLog.createTable(spark, path, txlog.txn.TxnTestKit.schema, Nil, Map.empty)
    val live =
      Seq("a.parquet", s"s3://$bucket/$prefix/b.parquet", s"s3n://$bucket/$prefix/c.parquet")
    DeltaLog.forTable(spark, path).startTransaction().addFiles(adds(live: _*)).commit()
    Seq("a", "b", "c", "orphan").foreach { n =>
      s3.client.putObject(
        software.amazon.awssdk.services.s3.model.PutObjectRequest
          .builder()
          .bucket(bucket)
          .key(s"$prefix/$n.parquet")
          .build(),
        software.amazon.awssdk.core.sync.RequestBody.fromString(n)
      )
    }
    def vacuum(dryRun: Boolean) = {
      val r = DeltaLog.forTable(spark, path).vacuum(Some(0.0), dryRun = dryRun, force = true)
      try r.files.collect().map(_.getAs[String]("path")).toSet
      finally r.unpersist()
    }
    assert(vacuum(dryRun = true) === Set("orphan.parquet"))
    // Retention 0 allowed; the listing in 4 tasks, not delta-spark's 10,000 (minutes on 2 cores).
    val conf = Map(
      "spark.databricks.delta.retentionDurationCheck.enabled" -> "false",
      "spark.sql.sources.parallelPartitionDiscovery.parallelism" -> "4"
    )
    conf.foreach { case (k, v) => spark.conf.set(k, v) }
    val ref =
      try
        Try(spark.sql(s"VACUUM delta.`$path` RETAIN 0 HOURS DRY RUN").collect().map(_.getString(0)))
      finally conf.keys.foreach(spark.conf.unset)
    // delta-spark cannot relate s3:// to the s3a:// root and refuses, deleting nothing; were it
    // to answer, txlog's list must be within its list.
    ref match {
      case Success(paths) => assert(paths.map(_.split('/').last).toSet === Set("orphan.parquet"))
      case Failure(e) =>
        info(s"delta-spark: ${e.getMessage.take(200)}")
        assert(
          e.getMessage.contains("DELTA_FAIL_RELATIVIZE_PATH") || e.getMessage.contains("Wrong FS")
        )
    }
    assert(vacuum(dryRun = false) === Set("orphan.parquet"))
    val keys =
      s3.keys(bucket, s"$prefix/").map(_.stripPrefix(s"$prefix/")).filterNot(_.startsWith("_"))
    assert(keys.toSet === Set("a.parquet", "b.parquet", "c.parquet"))
  }

  inTurn("maintenance on S3: checkpoints, checksum, compaction, cleanup and a commit") {
    assume(tables.contains("golden/checkpoint"), Fixtures.skipMessage)
    val prefix = "maint/checkpoint"
    val path = copyFixture("golden/checkpoint", bucket, prefix)
    val log = DeltaLog.forTable(spark, path)

    // A commit through the transaction API: put-if-absent of version 15.
    val c = log.startTransaction().addFiles(adds("new-1.parquet", "new-2.parquet")).commit()
    assert(c.committed && c.version === 15L && c.attempts === 1)

    // Checkpoints: classic, then multi-part of the same version.
    val classic = DeltaLog.forTable(spark, path).checkpoint()
    assert(classic.version === 15L && !classic.alreadyExisted)
    val multi = DeltaLog
      .forTable(spark, path)
      .checkpoint(kind = Some("multipart"), options = Map("parts" -> "2"))
    assert(multi.files.size === 2)
    val names = logKeys(prefix)
    assert(names.contains(FileNames.padded(15) + ".checkpoint.parquet"), names)
    assert(names.count(_.startsWith(FileNames.padded(15) + ".checkpoint.000000000")) === 2, names)
    assert(!names.exists(n => n.startsWith(".txlog-staging") || n.endsWith(".tmp")), names)
    val hint =
      LastCheckpoint.parse(new String(s3.get(bucket, s"$prefix/_delta_log/_last_checkpoint")))
    assert(hint.map(_.version) === Right(15L))
    // txlog reads the new checkpoint as delta-spark does, with the commit in it.
    val (ours, ref) = Oracle.both(spark, path)
    val v15 = ref.get
    assert(ours.get === v15 && v15.version === 15L)
    assert(v15.live.exists(_._1.endsWith("/new-1.parquet")))

    // The version checksum, validated against the snapshot.
    val crc = DeltaLog.forTable(spark, path).writeChecksum()
    assert(logKeys(prefix).contains(FileNames.padded(15) + ".crc"), crc)
    assert(DeltaLog.forTable(spark, path).validateChecksum().isValid)

    // Log compaction of 11 to 14 (below the checkpoint now; read when time travelling to 14).
    val compacted = DeltaLog.forTable(spark, path).compact(11L, 14L)
    assert(
      logKeys(prefix).contains(s"${FileNames.padded(11)}.${FileNames.padded(14)}.compacted.json"),
      compacted
    )
    val (ours14, ref14) = Oracle.both(spark, path, Some(14L))
    assert(ours14.get === ref14.get)

    // Metadata cleanup, three days from now (S3 cannot back-date the objects): everything before
    // the checkpoint of version 15 goes, and version 15 reads as before.
    val l = LogListing.list(DeltaLog.forTable(spark, path).table)
    val snap = DeltaLog.forTable(spark, path).snapshot()
    val now = System.currentTimeMillis() + 3L * 24 * 3600 * 1000
    val rows = MetadataCleanup
      .run(
        spark,
        l,
        snap.config,
        Some("1 day"),
        dryRun = false,
        force = true,
        now = now
      )
      .collect()
    assert(rows.nonEmpty && rows.forall(_.getAs[Boolean]("deleted")), rows.mkString("\n"))
    val left = logKeys(prefix).filter(n => n.head.isDigit)
    assert(left.forall(_.take(20).toLong >= 15L), left)
    assert(Oracle.txlog(spark, path, None) === v15)
    assert(Oracle.reference(spark, path, None) === v15)
  }

  test("a listing from a version on S3 starts after it, page by page; S3A's statuses agree") {
    val dir = txlog.testing.TempDirs.create("txlog-list-after")
    val names = (0 to 29).map(FileNames.commitName(_)) ++ Seq(
      "00000000000000000020.checkpoint.parquet",
      "00000000000000000005.00000000000000000021.compacted.json",
      "00000000000000000025.crc",
      "_last_checkpoint",
      "_sidecars/00000000000000000020.checkpoint.0000000001.0000000001.abc.parquet"
    )
    names.foreach { n =>
      val f = dir.resolve("_delta_log").resolve(n)
      Files.createDirectories(f.getParent)
      val body = if (n == "_last_checkpoint") """{"version":20,"size":1}""" else n
      Files.write(f, body.getBytes("UTF-8"))
    }
    s3.upload(dir, paged, "listed")
    val logDir = new Path(s"s3a://$paged/listed/_delta_log")
    val fs = fsOf(logDir.toString)
    val lister = S3ListAfter.of(fs)
    assert(lister.isDefined, "S3A here offers no SDK client to list with StartAfter")
    val after = "00000000000000000020"
    val seen = ArrayBuffer.empty[org.apache.hadoop.fs.FileStatus]
    lister.get.foreachAfter(logDir, after)(seen += _)
    // S3 lists keys in UTF-8 binary order; the subdirectory's keys are not files of this one.
    val expected = names.filter(n => !n.contains('/') && n.compareTo(after) > 0).sorted
    assert(seen.map(_.getPath.getName).toSeq === expected)
    val own = fs.listStatus(logDir).filter(_.isFile).map(s => s.getPath.getName -> s).toMap
    seen.foreach { s =>
      val o = own(s.getPath.getName)
      assert((s.getPath, s.getLen, s.isFile) === ((o.getPath, o.getLen, o.isFile)))
      assert(s.getModificationTime === o.getModificationTime)
    }
    // The log's listing from the checkpoint: commits 20 to 29, the checkpoint, the checksum.
    val listing = LogListing.fromHint(
      TablePath.qualified(s"s3a://$paged/listed", spark.sessionState.newHadoopConf())
    )
    assert(listing.listedFrom === 20L)
    assert(listing.commits.map(_.version) === (20L to 29L))
    assert(listing.checkpoints.map(_.version) === Seq(20L))
    assert(listing.checksums.keySet === Set(25L))
    assert(listing.compactions.isEmpty)
  }

  test(
    "a log file is read with one GET, ahead within half the pool; a missing one is LOG_READ_FAILED"
  ) {
    val key = "got/_delta_log/00000000000000000000.json"
    val body = "{\"a\":1}\r\n\n{\"b\":2}"
    s3.client.putObject(
      software.amazon.awssdk.services.s3.model.PutObjectRequest
        .builder()
        .bucket(paged)
        .key(key)
        .build(),
      software.amazon.awssdk.core.sync.RequestBody.fromString(body)
    )
    val file = new Path(s"s3a://$paged/$key")
    val fs = fsOf(file.toString)
    val open = S3Get.of(fs)
    assert(open.isDefined, "S3A here offers no SDK client to GET with")
    // Reads ahead of all readers of this file system: half of its pool of 8 connections.
    val permits = ReadPermits.of(fs)
    assert(permits.map(_.availablePermits) === Some(4))
    assert(ReadPermits.of(fs).exists(_ eq permits.get))
    val in = open.get(file)
    try assert(new String(in.readAllBytes(), "UTF-8") === body)
    finally in.close()
    val table = TablePath.qualified(s"s3a://$paged/got", spark.sessionState.newHadoopConf())
    val info = FileInfo(file.toString, body.length.toLong, 0L)
    val lines = LogLineReader.readOnDriver(table, Seq(0L -> info)).map(_.getString(3))
    assert(lines === Seq("{\"a\":1}", "{\"b\":2}"))
    val gone = FileInfo(s"s3a://$paged/got/_delta_log/00000000000000000001.json", 10L, 0L)
    intercept[java.io.FileNotFoundException](open.get(new Path(gone.path)))
    val e = intercept[TxlogException](LogLineReader.readOnDriver(table, Seq(1L -> gone)))
    assert(e.errorClass === "LOG_READ_FAILED" && e.getMessage.contains(gone.path), e)
    assert(e.getMessage.contains("FileNotFoundException"), e)
  }
}
