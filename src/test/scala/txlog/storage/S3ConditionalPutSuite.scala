package txlog.storage

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.hadoop.fs.Path

import txlog.{DeltaLog, Oracle, TxlogException}
import txlog.protocol.FileNames
import txlog.testing.Racing
import txlog.storage.S3Faults.{FailPut, IgnoreIfNoneMatch, LoseAck}
import txlog.txn.TxnTestKit.{adds, schema}

/** S3A without its own conditional create (hadoop-aws 3.3, Spark 3.5's, on the SDK v1; 3.4.0 and
  * 3.4.1, Spark 4.0's, on the SDK v2; on newer lines the suite's buckets turn
  * `fs.s3a.create.conditional.enabled` off) publishes log files with a conditional PUT through its
  * own AWS SDK client ([[S3ConditionalPut]]), against the local S3 server: a PUT onto an existing
  * key is refused by the server and changes nothing, racing writers each land exactly once, a PUT
  * whose answer is lost is found to be the writer's own, and a store that ignores `If-None-Match`
  * is refused by the probe before anything is written.
  */
class S3ConditionalPutSuite extends S3SparkSuite {
  private val bucket = "txlog-sdkput"

  /** Its PUTs lose the header (under [[IgnoreIfNoneMatch]]); the probe's refusal is kept per JVM.
    */
  private val ignoring = "txlog-sdkput-ignoring"
  def buckets: Seq[String] = Seq(bucket, ignoring)
  override def suiteConf: Map[String, String] =
    buckets
      .map(b => s"spark.hadoop.fs.s3a.bucket.$b.create.conditional.enabled" -> "false")
      .toMap ++
      faultConf ++
      // s3:// through S3A, as outside EMR (on EMR, s3:// is EMRFS, not S3A)
      Map("spark.hadoop.fs.s3.impl" -> "org.apache.hadoop.fs.s3a.S3AFileSystem")

  private val props = Map("delta.checkpointInterval" -> "1000")
  private def bytes(s: String) = s.getBytes(UTF_8)
  private def text(b: String, key: String) = new String(s3.get(b, key), UTF_8)
  private def commitKey(v: Long): String => Boolean = _.endsWith(FileNames.commitName(v))
  private def commits(b: String, table: String): Seq[String] =
    s3.keys(b, s"$table/_delta_log/").map(_.split('/').last).filter(_.endsWith(".json"))
  private def commit(p: String, files: String*) =
    DeltaLog.forTable(spark, p).startTransaction().addFiles(adds(spark, files)).commit()

  test("without S3A's conditional create, put-if-absent is the SDK's conditional PUT") {
    val dir = new Path(s"s3a://$bucket/raw/_delta_log")
    val fs = fsOf(dir.toString)
    assert(!fs.hasPathCapability(dir, ObjectLogStore.ConditionalCapability))
    val store = LogStores.forPath(fs, dir)
    val target = new Path(dir, FileNames.commitName(0))
    assert(store.putIfAbsent(target, bytes("first")))
    assert(!store.putIfAbsent(target, bytes("second")))
    assert(text(bucket, "raw/_delta_log/" + FileNames.commitName(0)) === "first")
    // A staged file is streamed into the PUT, and gone afterwards whether it won or not.
    Seq("one" -> true, "two" -> false).foreach { case (body, wins) =>
      val staged = new Path(dir, s".staged-$body")
      LogStores.forPath(fs, dir).overwrite(staged, bytes(body))
      assert(store.publish(staged, new Path(dir, FileNames.commitName(1))) === wins, body)
      assert(!fs.exists(staged))
    }
    assert(text(bucket, "raw/_delta_log/" + FileNames.commitName(1)) === "one")
    // The probe's object is gone; only the two log files are left.
    assert(s3.keys(bucket, "raw/").map(_.split('/').last) === (0 to 1).map(FileNames.commitName(_)))
    val publishing = store.publishing(dir)
    assert(publishing.concurrentWriters, publishing)
    val sdk = if (sdkV1) "v1" else "v2"
    assert(publishing.method.contains(s"S3A's AWS SDK $sdk client"), publishing)
    assert(!publishing.method.contains("probed"), publishing)
  }

  /** Commits per writer: 5 in every run (36 s with 10 on Spark 4.2); `make test-s3-race` races four
    * writer processes x 25 commits and delta-rs through the same PUT on Spark 4.0 and 3.5.
    */
  private val perWriter = 5

  test(s"4 writers x $perWriter commits race through the SDK's conditional PUT: each lands once") {
    val p = s"s3a://$bucket/race"
    DeltaLog.createTable(spark, p, schema, Seq("part"), props)
    val results = Racing.threads(4, perWriter) { (w, i) =>
      DeltaLog
        .forTable(spark, p)
        .startTransaction()
        .addFiles(adds(spark, Seq(s"w$w-$i"), s"p$w"))
        .commit()
    }
    assert(results.forall(_.committed))
    val n = 4 * perWriter
    assert(results.map(_.version).sorted === (1L to n.toLong))
    info(s"${results.map(_.attempts - 1).sum} retries among $n commits")
    assert(commits(bucket, "race") === (0 to n).map(FileNames.commitName(_)))
    val txnIds = (1 to n).map { v =>
      val first = text(bucket, s"race/_delta_log/${FileNames.commitName(v)}").linesIterator.next()
      """"txnId":"([^"]+)"""".r.findFirstMatchIn(first).map(_.group(1)).getOrElse(fail(first))
    }
    assert(txnIds.distinct.size === n)
    val (ours, ref) = Oracle.both(spark, p)
    assert(ref.get.version === n.toLong && ref.get.live.size === n)
    assert(ours.get === ref.get)
  }

  test("s3:// mapped to S3A publishes the same way, and delta-spark reads what it wrote") {
    val p = s"s3://$bucket/s3scheme"
    val log = DeltaLog.createTable(spark, p, schema, Seq("part"), props)
    (1 to 3).foreach(i => assert(commit(p, s"f$i.parquet").version === i.toLong))
    assert(log.checkpoint().version === 3L)
    val publishing = DeltaLog.forTable(spark, p).describe().publishing
    assert(publishing.scheme === "s3" && publishing.concurrentWriters, publishing)
    assert(publishing.method.contains("SDK"), publishing)
    val (ours, ref) = Oracle.both(spark, p)
    assert(ref.get.version === 3L && ref.get.live.size === 3)
    assert(ours.get === ref.get)
  }

  test("a PUT whose answer is lost is found to be the writer's own: committed once") {
    val p = s"s3a://$bucket/ack"
    DeltaLog.createTable(spark, p, schema, Seq("part"), props)
    val r = S3Faults.during(LoseAck(commitKey(1)))(commit(p, "a.parquet"))
    assert(S3Faults.hits.headOption.exists(_.endsWith("lost")), S3Faults.hits)
    assert(r.committed && r.version === 1L && r.attempts === 1, r)
    assert(commits(bucket, "ack") === (0 to 1).map(FileNames.commitName(_)))
    val ref = Oracle.reference(spark, p, None)
    assert(ref.version === 1L && ref.live.map(_._1.split('/').last) === Set("a.parquet"), ref)
  }

  test("a PUT that never gets through is LOG_WRITE_FAILED and the table stays writable") {
    val p = s"s3a://$bucket/put"
    DeltaLog.createTable(spark, p, schema, Seq("part"), props)
    val e = S3Faults.during(FailPut(commitKey(1))) {
      intercept[TxlogException](commit(p, "a.parquet"))
    }
    assert(S3Faults.hits.nonEmpty, S3Faults.hits)
    assert(e.errorClass === "LOG_WRITE_FAILED", e)
    assert(e.getMessage.contains(FileNames.commitName(1)), e.getMessage)
    assert(commits(bucket, "put") === Seq(FileNames.commitName(0)))
    assert(commit(p, "a.parquet").version === 1L)
  }

  test("a store that ignores If-None-Match is refused by the probe before anything is written") {
    val p = s"s3a://$ignoring/t"
    val e = S3Faults.during(IgnoreIfNoneMatch(_ => true)) {
      intercept[TxlogException](DeltaLog.createTable(spark, p, schema, Nil, props))
    }
    assert(S3Faults.hits.count(_.contains("without If-None-Match")) === 2, S3Faults.hits)
    assert(e.errorClass === "STORAGE_NOT_ATOMIC", e)
    assert(e.getMessage.contains("ignores the header"), e.getMessage)
    assert(s3.keys(ignoring, "t/").isEmpty, s3.keys(ignoring, "t/"))
    // Kept for the JVM: no header is stripped now, and the bucket is still refused.
    intercept[TxlogException](DeltaLog.createTable(spark, p, schema, Nil, props))
    val dir = new Path(s"$p/_delta_log")
    val publishing = LogStores.forPath(fsOf(p), dir).publishing(dir)
    assert(!publishing.concurrentWriters && publishing.method.startsWith("refused"), publishing)
    assert(publishing.method.contains("ignores the header"), publishing)
  }

  test("spark.txlog.storage.sdkConditionalPut=false refuses as before: STORAGE_NOT_ATOMIC") {
    val p = s"s3a://$bucket/off"
    spark.conf.set("spark.txlog.storage.sdkConditionalPut", "false")
    try {
      val e = intercept[TxlogException](DeltaLog.createTable(spark, p, schema, Nil, props))
      assert(e.errorClass === "STORAGE_NOT_ATOMIC", e)
      val dir = new Path(s"$p/_delta_log")
      assert(LogStores.forPath(fsOf(p), dir).publishing(dir).method.startsWith("refused"))
    } finally spark.conf.unset("spark.txlog.storage.sdkConditionalPut")
    assert(s3.keys(bucket, "off/").isEmpty)
    assert(DeltaLog.createTable(spark, p, schema, Nil, props).snapshot().version === 0L)
  }
}
