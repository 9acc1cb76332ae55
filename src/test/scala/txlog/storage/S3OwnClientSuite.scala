package txlog.storage

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.hadoop.fs.Path

import txlog.{DeltaLog, Oracle, TxlogException}
import txlog.protocol.FileNames
import txlog.testing.Racing
import txlog.txn.TxnTestKit.{adds, schema}

/** An S3 file system that is not S3A (EMRFS on EMR, Databricks' shaded S3A; here
  * [[S3StandInFileSystem]] as `s3://`, over the local S3 server) has no SDK client txlog can borrow
  * and no conditional create: txlog publishes through an AWS SDK v1 client of its own
  * ([[S3OwnSdkV1Client]]), configured from the table's S3A settings, after the same probe.
  */
class S3OwnClientSuite extends S3SparkSuite {
  private val bucket = "txlog-own"
  private val badKey = "txlog-own-badkey"
  def buckets: Seq[String] = Seq(bucket, badKey)
  override def suiteConf: Map[String, String] = Map(
    "spark.hadoop.fs.s3.impl" -> classOf[S3StandInFileSystem].getName,
    // A wrong secret for one bucket only: S3A and the own client read it alike.
    s"spark.hadoop.fs.s3a.bucket.$badKey.secret.key" -> "not-the-secret"
  )

  private val props = Map("delta.checkpointInterval" -> "1000")
  private def bytes(s: String) = s.getBytes(UTF_8)
  private def text(b: String, key: String) = new String(s3.get(b, key), UTF_8)
  private def commits(b: String, table: String): Seq[String] =
    s3.keys(b, s"$table/_delta_log/").map(_.split('/').last).filter(_.endsWith(".json"))

  test("a file system that is not S3A gets txlog's own SDK client: put-if-absent, never over") {
    val dir = new Path(s"s3://$bucket/raw/_delta_log")
    val fs = fsOf(dir.toString)
    assert(fs.isInstanceOf[S3StandInFileSystem])
    assert(!fs.hasPathCapability(dir, ObjectLogStore.ConditionalCapability))
    val store = LogStores.forPath(fs, dir)
    val before = store.publishing(dir)
    assert(before.method.contains("txlog's own AWS SDK v1 client"), before)
    assert(before.method.contains("probed on the first write"), before)
    val target = new Path(dir, FileNames.commitName(0))
    assert(store.putIfAbsent(target, bytes("first")))
    assert(!store.putIfAbsent(target, bytes("second")))
    assert(text(bucket, "raw/_delta_log/" + FileNames.commitName(0)) === "first")
    Seq("one" -> true, "two" -> false).foreach { case (body, wins) =>
      val staged = new Path(dir, s".staged-$body")
      store.overwrite(staged, bytes(body))
      assert(store.publish(staged, new Path(dir, FileNames.commitName(1))) === wins, body)
      assert(!fs.exists(staged))
    }
    assert(text(bucket, "raw/_delta_log/" + FileNames.commitName(1)) === "one")
    assert(s3.keys(bucket, "raw/").map(_.split('/').last) === (0 to 1).map(FileNames.commitName(_)))
    val after = store.publishing(dir)
    assert(after.concurrentWriters && !after.method.contains("probed"), after)
  }

  /** Commits per writer: 5 in every run, as in the S3A suite, whose PUT code is the same (10 here
    * took 37 s).
    */
  private val perWriter = 5
  private val n = 4 * perWriter

  test(
    s"4 writers x $perWriter commits race on s3:// through txlog's own client: each lands once"
  ) {
    val p = s"s3://$bucket/race"
    DeltaLog.createTable(spark, p, schema, Seq("part"), props)
    val results = Racing.threads(4, perWriter) { (w, i) =>
      DeltaLog
        .forTable(spark, p)
        .startTransaction()
        .addFiles(adds(spark, Seq(s"w$w-$i"), s"p$w"))
        .commit()
    }
    assert(results.forall(_.committed))
    assert(results.map(_.version).sorted === (1L to n.toLong))
    assert(commits(bucket, "race") === (0 to n).map(FileNames.commitName(_)))
    val log = DeltaLog.forTable(spark, p)
    assert(log.checkpoint().version === n.toLong)
    assert(log.describe().publishing.method.contains("txlog's own"), log.describe().publishing)
    val (ours, ref) = Oracle.both(spark, p)
    assert(ref.get.version === n.toLong && ref.get.live.size === n)
    assert(ours.get === ref.get)
  }

  test("credentials the store refuses: a typed failure, and nothing is written") {
    val p = s"s3://$badKey/t"
    // S3A (behind the stand-in) lists first: LOG_READ_FAILED, retryable, not "no table".
    val e = intercept[TxlogException](DeltaLog.createTable(spark, p, schema, Nil, props))
    assert(e.errorClass === "LOG_READ_FAILED", e)
    assert(e.getMessage.contains("403") || e.getMessage.contains("AccessDenied"), e.getMessage)
    // txlog's own client reads the same wrong secret: its probe's PUT is refused (the local
    // server answers 403 or drops the connection mid-upload): LOG_WRITE_FAILED, nothing concluded.
    val dir = new Path(s"$p/_delta_log")
    val w = intercept[TxlogException](LogStores.forPath(fsOf(p), dir).checkPutIfAbsent(dir))
    assert(w.errorClass === "LOG_WRITE_FAILED", w)
    assert(w.getMessage.contains(".txlog-put-if-absent-probe-"), w.getMessage)
    assert(s3.keys(badKey, "").isEmpty, s3.keys(badKey, ""))
  }
}
