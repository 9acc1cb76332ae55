package txlog.storage

import java.io.{FileNotFoundException, IOException}
import java.nio.charset.StandardCharsets.UTF_8

import org.apache.hadoop.fs.{FileSystem, Path}
import software.amazon.awssdk.core.sync.RequestBody
import software.amazon.awssdk.services.s3.model.PutObjectRequest

import txlog.DeltaLog
import txlog.config.TxlogConf
import txlog.txn.TxnTestKit.{adds, schema}

/** Lean GETs of log objects ([[S3LeanGet]]) against the local S3 server, which checks every
  * request's SigV4 signature: the bytes come back as stored, for keys that need encoding; a missing
  * object is FileNotFoundException; what the path does not answer (a large object, a refusal) S3A's
  * client answers, and a refusal switches the path off.
  */
class S3LeanGetSuite extends S3SparkSuite {
  private val bucket = "txlog-lean"
  private val badKey = "txlog-lean-badkey"
  private val viaSdk = "txlog-lean-interceptors"
  def buckets: Seq[String] = Seq(bucket, badKey, viaSdk)
  override def suiteConf: Map[String, String] = Map(
    // A wrong secret for one bucket: the server refuses lean GETs and S3A's alike.
    s"spark.hadoop.fs.s3a.bucket.$badKey.secret.key" -> "not-the-secret",
    // Interceptors of S3A's SDK client must see every request: no lean GETs there.
    s"spark.hadoop.fs.s3a.bucket.$viaSdk.audit.execution.interceptors" ->
      classOf[S3FaultInterceptor].getName
  )

  private def put(b: String, key: String, body: Array[Byte]): Unit =
    s3.client.putObject(
      PutObjectRequest.builder().bucket(b).key(key).build(),
      RequestBody.fromBytes(body)
    )

  private def fsAndLean(b: String): (FileSystem, Option[S3LeanGet]) = {
    val fs = fsOf(s"s3a://$b/")
    (fs, S3AClients.v2(fs).flatMap(S3LeanGet.of(fs, _)))
  }

  /** The lean GET of `b`; the test is cancelled on S3A before hadoop-aws 3.4 (SDK v1). */
  private def lean(b: String): (FileSystem, S3LeanGet) = {
    assume(!sdkV1, "S3A on the AWS SDK v1 has no lean GETs")
    val (fs, l) = fsAndLean(b)
    assert(l.isDefined, s"no lean GET for $b")
    fs -> l.get
  }

  private def read(in: java.io.InputStream): String =
    try new String(in.readAllBytes(), UTF_8)
    finally in.close()

  test("a lean GET returns the object as stored, for keys that need encoding, signed as checked") {
    val (_, l) = lean(bucket)
    val keys = Seq(
      "plain/_delta_log/00000000000000000000.json",
      "a b/c=1+2/%41~!'()*,;:@&$/_delta_log/00000000000000000001.json",
      "ünï/日本/_delta_log/_last_checkpoint"
    )
    keys.zipWithIndex.foreach { case (key, i) =>
      put(bucket, key, s"""{"commitInfo":{"n":$i,"key":"$key"}}""".getBytes(UTF_8))
    }
    val before = l.answered
    keys.zipWithIndex.foreach { case (key, i) =>
      val got = l.get(key, new Path(s"s3a://$bucket/$key"))
      assert(got.map(read).contains(s"""{"commitInfo":{"n":$i,"key":"$key"}}"""), key)
    }
    assert(l.answered - before === keys.size)
    assert(l.active)
  }

  test("a missing object is FileNotFoundException naming the path; lean GETs stay on") {
    val (_, l) = lean(bucket)
    val path = new Path(s"s3a://$bucket/none/_delta_log/_last_checkpoint")
    val e = intercept[FileNotFoundException](l.get("none/_delta_log/_last_checkpoint", path))
    assert(e.getMessage.contains(path.toString))
    assert(l.active)
  }

  test("an object over 1 MiB and one of 1 MiB: the larger is left to S3A's client") {
    val (fs, l) = lean(bucket)
    val big = Array.fill[Byte](S3LeanGet.MaxBytes + 1)('x'.toByte)
    put(bucket, "big/_delta_log/00000000000000000000.json", big)
    put(bucket, "big/_delta_log/00000000000000000001.json", big.take(S3LeanGet.MaxBytes))
    val larger = new Path(s"s3a://$bucket/big/_delta_log/00000000000000000000.json")
    assert(l.get("big/_delta_log/00000000000000000000.json", larger).isEmpty)
    val exact = l.get(
      "big/_delta_log/00000000000000000001.json",
      new Path(s"s3a://$bucket/big/_delta_log/00000000000000000001.json")
    )
    assert(exact.map(_.readAllBytes().length).contains(S3LeanGet.MaxBytes))
    assert(l.active)
    // Through S3Get, the larger one still reads whole (S3A's client answers it).
    val in = S3Get.of(fs).get(larger)
    try assert(in.readAllBytes().length === big.length)
    finally in.close()
  }

  test("a refusal (403) switches lean GETs off; S3A's client then answers, with its own error") {
    val (fs, l) = lean(badKey)
    val key = "t/_delta_log/00000000000000000000.json"
    put(badKey, key, "{}".getBytes(UTF_8))
    val path = new Path(s"s3a://$badKey/$key")
    assert(l.get(key, path).isEmpty)
    assert(!l.active)
    val e = intercept[IOException](S3Get.of(fs).get(path))
    assert(!e.isInstanceOf[FileNotFoundException], e)
    assert(e.getMessage.contains(path.toString), e)
  }

  test("settings that change a GET keep the lean path away: interceptors, the switch") {
    assume(!sdkV1, "S3A on the AWS SDK v1 has no lean GETs")
    assert(fsAndLean(viaSdk)._2.isEmpty)
    spark.conf.set(TxlogConf.StorageS3LeanGet.key, "false")
    try
      assert(
        S3LeanGet.of(fsOf(s"s3a://$bucket/"), S3AClients.v2(fsOf(s"s3a://$bucket/")).get).isEmpty
      )
    finally spark.conf.unset(TxlogConf.StorageS3LeanGet.key)
  }

  test("a table on S3 loads through lean GETs, the same as with them off") {
    val (_, l) = lean(bucket)
    assume(atomicPut(bucket), "this Hadoop's S3A has no put-if-absent (3.4.0+)")
    val table = s"s3a://$bucket/table"
    DeltaLog.createTable(
      spark,
      table,
      schema,
      Seq("part"),
      Map("delta.checkpointInterval" -> "1000")
    )
    (1 to 4).foreach { i =>
      DeltaLog.forTable(spark, table).startTransaction().addFiles(adds(spark, Seq(s"f$i"))).commit()
    }
    val before = l.answered
    val on = DeltaLog.forTable(spark, table).snapshot()
    assert(l.answered - before >= 5, "the commits were read by lean GETs")
    spark.conf.set(TxlogConf.StorageS3LeanGet.key, "false")
    val off =
      try DeltaLog.forTable(spark, table).snapshot()
      finally spark.conf.unset(TxlogConf.StorageS3LeanGet.key)
    assert((on.version, on.numFiles, on.sizeInBytes) === ((4L, 4L, 400L)))
    assert((off.version, off.numFiles, off.sizeInBytes) === ((4L, 4L, 400L)))
    assert(on.allFiles.collect().map(_.getAs[String]("path")).sorted === (1 to 4).map(i => s"f$i"))
  }
}
