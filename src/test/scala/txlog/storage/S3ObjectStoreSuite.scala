package txlog.storage

import java.io.IOException
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{ConcurrentLinkedQueue, CyclicBarrier, Executors, TimeUnit}
import java.util.concurrent.atomic.AtomicBoolean

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration._
import scala.util.Try

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.functions.col
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration
import software.amazon.awssdk.core.sync.RequestBody
import software.amazon.awssdk.services.s3.model.{PutObjectRequest, S3Exception}

import txlog.{DeltaLog, Fixtures, Oracle, TxlogException}
import txlog.config.TxlogConf
import txlog.log.{LastCheckpoint, LogWrites}
import txlog.protocol.FileNames
import txlog.txn.TxnTestKit.{adds, schema}

/** [[ObjectLogStore]] on S3 through S3A (each line's hadoop-aws), against a local S3Proxy: the
  * conditional create is really taken and really refused by the server (412), racing writers end in
  * one valid state, a file system without the capability is refused unless single-writer mode is
  * set, and a server that is down is a storage error, not corruption.
  */
class S3ObjectStoreSuite extends S3SparkSuite {
  private val bucket = "txlog-objstore"

  /** A bucket whose S3A has the conditional create switched off (as on Hadoop < 3.4.2), and whose
    * writers may not use the SDK's conditional PUT instead (S3ConditionalPutSuite tests that).
    */
  private val plain = "txlog-objstore-plain"
  def buckets: Seq[String] = Seq(bucket, plain)
  override def suiteConf: Map[String, String] =
    Map(s"spark.hadoop.fs.s3a.bucket.$plain.create.conditional.enabled" -> "false")

  /** Runs `f` with the SDK's conditional PUT switched off. */
  private def withoutSdkPut[T](f: => T): T = {
    spark.conf.set(TxlogConf.StorageSdkConditionalPut.key, "false")
    try f
    finally spark.conf.unset(TxlogConf.StorageSdkConditionalPut.key)
  }

  /** The checkpoint every 10 commits is not what is tested here, unless a test asks for it. */
  private val props = Map("delta.checkpointInterval" -> "1000")

  private def bytes(s: String) = s.getBytes(UTF_8)
  private def text(b: String, key: String) = new String(s3.get(b, key), UTF_8)

  /** Cancels a test that needs S3A's conditional create when this Hadoop lacks it (< 3.4.2). */
  private def assumeConditional(): Unit =
    assume(conditionalCreate(bucket), "this Hadoop's S3A has no conditional create (3.4.2+)")

  /** Cancels a test that needs put-if-absent where S3A has none (neither its conditional create nor
    * an AWS SDK v2 client: hadoop-aws before 3.4).
    */
  private def assumeAtomicPut(): Unit =
    assume(atomicPut(bucket), "this Hadoop's S3A has no put-if-absent (3.4.0+)")

  private def withPool[T](threads: Int)(f: ExecutionContext => T): T = {
    val pool = Executors.newFixedThreadPool(threads)
    try f(ExecutionContext.fromExecutor(pool))
    finally { pool.shutdownNow(); pool.awaitTermination(1, TimeUnit.MINUTES) }
  }

  test("the server refuses a put-if-absent onto an existing key with 412") {
    // The header itself (signed with the request): the SDK of Hadoop 3.4.1 has no ifNoneMatch.
    val ifNoneMatch = AwsRequestOverrideConfiguration.builder().putHeader("If-None-Match", "*")
    val put = PutObjectRequest
      .builder()
      .bucket(bucket)
      .key("raw/k")
      .overrideConfiguration(ifNoneMatch.build())
      .build()
    s3.client.putObject(put, RequestBody.fromString("first"))
    val e = intercept[S3Exception](s3.client.putObject(put, RequestBody.fromString("second")))
    assert(e.statusCode === 412)
    assert(text(bucket, "raw/k") === "first")
  }

  test("S3A's conditional create of an existing key fails on the server's 412, bytes kept") {
    assumeConditional()
    val p = new Path(s"s3a://$bucket/raw/cond")
    val fs = fsOf(p.toString)
    val first = fs.create(p, true)
    first.write(bytes("first"))
    first.close()
    val e = intercept[IOException] {
      val out =
        fs.createFile(p).overwrite(false).must(ObjectLogStore.ConditionalOption, true).build()
      out.write(bytes("second"))
      out.close()
    }
    info(s"S3A raised ${e.getClass.getName}: ${e.getMessage.take(200)}")
    assert(e.isInstanceOf[org.apache.hadoop.fs.s3a.RemoteFileChangedException], e)
    assert(e.getMessage.contains("412"), e)
    assert(text(bucket, "raw/cond") === "first")
  }

  test("S3A reports the conditional create; ObjectLogStore takes it and never overwrites") {
    assumeConditional()
    val dir = new Path(s"s3a://$bucket/t1/_delta_log")
    val fs = fsOf(dir.toString)
    assert(fs.hasPathCapability(dir, ObjectLogStore.ConditionalCapability))
    val store = LogStores.forPath(fs, dir)
    assert(store.isInstanceOf[ObjectLogStore])
    store.checkPutIfAbsent(dir)
    val target = new Path(dir, "00000000000000000000.json")
    assert(LogWrites.putIfAbsent(fs, target, bytes("zero")))
    assert(!LogWrites.putIfAbsent(fs, target, bytes("again")))
    val staged = new Path(dir, ".staged")
    val out = fs.create(staged, true)
    out.write(bytes("staged"))
    out.close()
    assert(!LogWrites.publish(fs, staged, target))
    assert(text(bucket, "t1/_delta_log/00000000000000000000.json") === "zero")
    // The refused publish removed its staged file.
    assert(s3.keys(bucket, "t1/") === Seq("t1/_delta_log/00000000000000000000.json"))
  }

  test("racing put-if-absent, 8 threads x 20 rounds: exactly one wins, its bytes stay") {
    assumeAtomicPut()
    val fs = fsOf(s"s3a://$bucket/")
    withPool(8) { implicit ec =>
      (0 until 20).foreach { round =>
        val target = new Path(s"s3a://$bucket/race/_delta_log/${FileNames.commitName(round)}")
        val barrier = new CyclicBarrier(8)
        val racers = (0 until 8).map { i =>
          Future {
            barrier.await()
            i -> LogWrites.putIfAbsent(fs, target, bytes(s"writer $i of round $round"))
          }
        }
        val winners = racers.map(Await.result(_, 2.minutes)).collect { case (i, true) => i }
        assert(winners.size === 1, s"round $round")
        val key = s"race/_delta_log/${FileNames.commitName(round)}"
        assert(text(bucket, key) === s"writer ${winners.head} of round $round")
      }
    }
  }

  test("racing _last_checkpoint writers, 2 threads x 40: a reader never sees it partial") {
    val fs = fsOf(s"s3a://$bucket/")
    val target = new Path(s"s3a://$bucket/lc/_delta_log/_last_checkpoint")
    val docs = (0 until 80).map { i =>
      LastCheckpoint.toJson(LastCheckpoint(i.toLong, 3L + i, None, Some(1000L + i), None, None))
    }
    LogWrites.overwrite(fs, target, bytes(docs.head))
    val done = new AtomicBoolean(false)
    val bad = new ConcurrentLinkedQueue[String]()
    val reader = new Thread(() =>
      while (!done.get) {
        val s = Try(text(bucket, "lc/_delta_log/_last_checkpoint"))
        if (s.isFailure) bad.add(s"unreadable: ${s.failed.get}")
        else if (!docs.contains(s.get)) bad.add(s"partial: ${s.get}")
      }
    )
    reader.start()
    try
      withPool(2) { implicit ec =>
        val writers = (0 until 2).map { w =>
          Future((0 until 40).foreach(i => LogWrites.overwrite(fs, target, bytes(docs(2 * i + w)))))
        }
        writers.foreach(Await.result(_, 2.minutes))
      }
    finally { done.set(true); reader.join() }
    assert(bad.isEmpty, bad.toArray.distinct.take(3).mkString("; "))
    val last = text(bucket, "lc/_delta_log/_last_checkpoint")
    assert(Seq(docs(78), docs(79)).contains(last))
    assert(LastCheckpoint.parse(last).isRight)
    assert(s3.keys(bucket, "lc/") === Seq("lc/_delta_log/_last_checkpoint"))
  }

  test("two racing checkpoint writers, classic then multi-part: one checkpoint, a valid hint") {
    assumeAtomicPut()
    val path = s"s3a://$bucket/cp"
    DeltaLog.createTable(spark, path, schema, Seq("part"), props)
    // A checkpoint is a few Spark jobs and ~100 S3 requests: two rounds keep the suite short.
    (1 to 2).foreach { round =>
      DeltaLog
        .forTable(spark, path)
        .startTransaction()
        .addFiles(adds(spark, Seq(s"f$round")))
        .commit()
      val kind = if (round % 2 == 0) Some("multipart") else None
      val options = if (kind.isDefined) Map("parts" -> "2") else Map.empty[String, String]
      val barrier = new CyclicBarrier(2)
      val results = withPool(2) { implicit ec =>
        val writers = (0 until 2).map { _ =>
          Future {
            val log = DeltaLog.forTable(spark, path)
            barrier.await()
            log.checkpoint(kind = kind, options = options)
          }
        }
        writers.map(Await.result(_, 3.minutes))
      }
      assert(results.map(_.version).toSet === Set(round.toLong))
      // A classic checkpoint is one conditional PUT: one writer's lands, the other keeps it.
      if (kind.isEmpty) assert(results.count(!_.alreadyExisted) === 1, results)
      val names = s3.keys(bucket, "cp/_delta_log/").map(_.stripPrefix("cp/_delta_log/"))
      val ofRound =
        names.filter(n => n.startsWith(FileNames.padded(round)) && n.contains(".checkpoint."))
      assert(ofRound.size === (if (kind.isDefined) 2 else 1), names)
      assert(!names.exists(n => n.startsWith(".txlog-staging") || n.contains("/")), names)
      val hint = LastCheckpoint.parse(text(bucket, "cp/_delta_log/_last_checkpoint"))
      assert(hint.map(_.version) === Right(round.toLong))
    }
    val (ours, ref) = Oracle.both(spark, path)
    assert(ours.get === ref.get && ref.get.version === 2L)
  }

  test("two racing commits of one version: one wins it, the other retries onto the next") {
    assumeAtomicPut()
    val path = s"s3a://$bucket/commits"
    DeltaLog.createTable(spark, path, schema, Seq("part"), props)
    (0 until 4).foreach { round =>
      val base = DeltaLog.forTable(spark, path).snapshot().version
      val txns = (0 until 2).map { w =>
        DeltaLog
          .forTable(spark, path)
          .startTransaction()
          .addFiles(adds(spark, Seq(s"r$round-w$w")))
      }
      val barrier = new CyclicBarrier(2)
      val results = withPool(2) { implicit ec =>
        txns.map(t => Future { barrier.await(); t.commit() }).map(Await.result(_, 2.minutes))
      }
      assert(results.forall(_.committed))
      assert(results.map(_.version).sorted === Seq(base + 1, base + 2), s"round $round")
      // The loser found version base + 1 taken, checked the winner for conflicts, and retried.
      assert(results.map(_.attempts).sorted === Seq(1, 2), s"round $round")
    }
    val ref = Oracle.reference(spark, path, None)
    assert(ref.version === 8L && ref.live.size === 8)

    // Both read and remove the same file: the loser gets the conflict, not a retry.
    val t = (0 until 2).map { _ =>
      val txn = DeltaLog.forTable(spark, path).startTransaction()
      val read = txn.readFiles(col("path") === "r0-w0")
      txn.removeFiles(read.select("path", "size", "partitionValues", "dataChange"))
    }
    val barrier = new CyclicBarrier(2)
    val outcomes = withPool(2) { implicit ec =>
      t.map(x => Future { barrier.await(); Try(x.commit()) }).map(Await.result(_, 2.minutes))
    }
    assert(outcomes.count(_.isSuccess) === 1)
    val e = outcomes.find(_.isFailure).get.failed.get
    assert(e.asInstanceOf[TxlogException].errorClass === "CONCURRENT_DELETE_READ", e)
    assert(Oracle.reference(spark, path, None).live.size === 7)
  }

  test("without the conditional create, writes are refused: STORAGE_NOT_ATOMIC") {
    assume(Fixtures.available, Fixtures.skipMessage)
    withoutSdkPut(refusedWithoutConditionalCreate())
  }

  private def refusedWithoutConditionalCreate(): Unit = {
    val path = copyFixture("golden/checkpoint", plain, "refused")
    val dir = new Path(s"$path/_delta_log")
    val fs = fsOf(path)
    assert(!fs.hasPathCapability(dir, ObjectLogStore.ConditionalCapability))
    val before = s3.keys(plain, "refused/")
    val log = DeltaLog.forTable(spark, path)
    assert(log.snapshot().version === 14L) // reading needs no put-if-absent
    val attempts = Seq[(String, () => Any)](
      "commit" -> (() => log.startTransaction().commit()),
      "checkpoint" -> (() => log.checkpoint()),
      "checksum" -> (() => log.writeChecksum()),
      "compaction" -> (() => log.compact(0L, 3L)),
      "put-if-absent" -> (() =>
        LogWrites.putIfAbsent(fs, new Path(dir, FileNames.commitName(15)), bytes("{}"))
      ),
      "create" -> (() => DeltaLog.createTable(spark, s"s3a://$plain/new", schema, Nil, props))
    )
    attempts.foreach { case (what, f) =>
      val e = intercept[TxlogException](f())
      assert(e.errorClass === "STORAGE_NOT_ATOMIC", what)
      assert(e.getMessage.contains("spark.txlog.storage.singleWriter=true"), what)
    }
    assert(s3.keys(plain, "refused/") === before)
    assert(s3.keys(plain, "new/").isEmpty)
  }

  test("single-writer mode opts in to check-then-create without the conditional create") {
    withoutSdkPut(singleWriterChecksThenCreates())
  }

  private def singleWriterChecksThenCreates(): Unit = {
    val path = s"s3a://$plain/single"
    spark.conf.set(StorageConf.SingleWriterKey, "true")
    try {
      val log = DeltaLog.createTable(spark, path, schema, Seq("part"), props)
      log.startTransaction().addFiles(adds(spark, Seq("a", "b"))).commit()
      val cp = DeltaLog.forTable(spark, path).checkpoint()
      assert(cp.version === 1L && !cp.alreadyExisted)
      val fs = fsOf(path)
      val v1 = new Path(s"$path/_delta_log/${FileNames.commitName(1)}")
      val kept = text(plain, s"single/_delta_log/${FileNames.commitName(1)}")
      assert(!LogWrites.putIfAbsent(fs, v1, bytes("{}")))
      assert(text(plain, s"single/_delta_log/${FileNames.commitName(1)}") === kept)
      val (ours, ref) = Oracle.both(spark, path)
      assert(ours.get === ref.get && ref.get.version === 1L && ref.get.live.size === 2)
    } finally spark.conf.unset(StorageConf.SingleWriterKey)
    intercept[TxlogException](DeltaLog.forTable(spark, path).startTransaction().commit())
  }

  test("a server that is down is LOG_READ_FAILED (retryable), not a corrupt log") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val other = S3Proxy.start()
    val down = "txlog-down"
    try {
      other.createBucket(down)
      val hc = spark.sparkContext.hadoopConfiguration
      hc.set(s"fs.s3a.bucket.$down.endpoint", other.endpoint)
      other.upload(Fixtures.root.resolve("golden/checkpoint"), down, "t")
      val path = s"s3a://$down/t"
      assert(DeltaLog.forTable(spark, path).snapshot().version === 14L)
      other.stop()
      assert(!other.isAlive)
      val e = intercept[TxlogException](DeltaLog.forTable(spark, path).snapshot())
      info(s"with the server down: ${e.getMessage.take(300)}")
      assert(e.errorClass === "LOG_READ_FAILED", e)
      assert(e.isRetryable)
      // A put-if-absent that cannot reach the server is a failed write, never "it existed" nor
      // "it did not exist" (without the conditional create: the single-writer existence check).
      val fs = fsOf(path)
      if (!conditionalCreate(bucket)) spark.conf.set(StorageConf.SingleWriterKey, "true")
      val w = intercept[TxlogException] {
        LogWrites.putIfAbsent(
          fs,
          new Path(s"$path/_delta_log/${FileNames.commitName(15)}"),
          bytes("{}")
        )
      }
      assert(w.errorClass === "LOG_WRITE_FAILED", w)
      assert(w.isRetryable)
    } finally { other.stop(); spark.conf.unset(StorageConf.SingleWriterKey) }
  }
}
