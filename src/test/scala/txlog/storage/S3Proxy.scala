package txlog.storage

import java.io.File
import java.net.{InetSocketAddress, ServerSocket, Socket, URI}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path => NPath}
import java.util.concurrent.TimeUnit

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import software.amazon.awssdk.auth.credentials.{AwsBasicCredentials, StaticCredentialsProvider}
import software.amazon.awssdk.core.sync.RequestBody
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.s3.S3Client
import software.amazon.awssdk.services.s3.model._

/** A local S3 server for tests: S3Proxy (its self-contained jar, which sbt fetches into a hidden
  * configuration and names in the system property `txlog.test.s3proxy.jar`) run as a child JVM on a
  * free loopback port, with the in-memory `transient-nio2` backend, which checks `If-None-Match: *`
  * atomically (412 when the key exists). [[stop]] ends the child; a JVM shutdown hook does too.
  *
  * {{{
  * val s3 = S3Proxy.start()
  * s3.createBucket("b")
  * spark settings: s3.sparkConf  // then read s3a://b/...
  * s3.stop()
  * }}}
  */
final class S3Proxy private (val port: Int, process: Process, dir: NPath) {
  import S3Proxy._

  /** The server's endpoint URL. */
  val endpoint: String = s"http://127.0.0.1:$port"

  private val hook = new Thread(() => destroy())
  Runtime.getRuntime.addShutdownHook(hook)

  /** An AWS SDK client of the server (path-style, static credentials). */
  lazy val client: S3Client = S3Client
    .builder()
    .endpointOverride(URI.create(endpoint))
    .region(Region.US_EAST_1)
    .forcePathStyle(true)
    .credentialsProvider(
      StaticCredentialsProvider.create(AwsBasicCredentials.create(Identity, Credential))
    )
    .build()

  /** The server's log (its own output), in a temporary directory removed by [[stop]]. */
  val logFile: NPath = dir.resolve("s3proxy.log")

  /** Creates a bucket. */
  def createBucket(name: String): Unit =
    client.createBucket(CreateBucketRequest.builder().bucket(name).build())

  /** Uploads every file under `dir` to `bucket` under the key prefix `prefix` (Hadoop's local
    * `.name.crc` side files excepted: they are not part of a table).
    */
  def upload(dir: NPath, bucket: String, prefix: String): Int = {
    val s = Files.walk(dir)
    val files =
      try s.iterator().asScala.filter(Files.isRegularFile(_)).toList
      finally s.close()
    val wanted = files.filterNot { f =>
      val n = f.getFileName.toString
      n.startsWith(".") && n.endsWith(".crc")
    }
    wanted.foreach { f =>
      val rel = dir.relativize(f).iterator().asScala.map(_.toString).mkString("/")
      client.putObject(
        PutObjectRequest.builder().bucket(bucket).key(s"$prefix/$rel").build(),
        RequestBody.fromFile(f)
      )
    }
    wanted.size
  }

  /** The bytes of an object. */
  def get(bucket: String, key: String): Array[Byte] =
    client.getObjectAsBytes(GetObjectRequest.builder().bucket(bucket).key(key).build()).asByteArray

  /** The keys under `prefix`, sorted. */
  def keys(bucket: String, prefix: String): Seq[String] =
    client
      .listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).build())
      .contents()
      .asScala
      .map(_.key)
      .toSeq
      .sorted

  /** Hadoop settings (without the `spark.hadoop.` prefix) for S3A to reach this server for every
    * bucket: path-style, plain HTTP, static credentials, conditional create on, few retries.
    */
  def hadoopConf: Map[String, String] = Map(
    "fs.s3a.endpoint" -> endpoint,
    "fs.s3a.endpoint.region" -> "us-east-1",
    "fs.s3a.path.style.access" -> "true",
    "fs.s3a.connection.ssl.enabled" -> "false",
    "fs.s3a.aws.credentials.provider" -> "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
    "fs.s3a.access.key" -> Identity,
    "fs.s3a.secret.key" -> Credential,
    ObjectLogStore.ConditionalCapability -> "true",
    "fs.s3a.attempts.maximum" -> "2",
    "fs.s3a.retry.limit" -> "2",
    "fs.s3a.retry.interval" -> "50ms",
    // Milliseconds without a unit: hadoop-aws 3.3 reads it as an integer.
    "fs.s3a.connection.establish.timeout" -> "5000"
  )

  /** [[hadoopConf]] as Spark session settings. */
  def sparkConf: Map[String, String] = hadoopConf.map { case (k, v) => s"spark.hadoop.$k" -> v }

  /** Stops the server and waits for its JVM to exit. */
  def stop(): Unit = {
    try Runtime.getRuntime.removeShutdownHook(hook)
    catch { case _: IllegalStateException => () } // the JVM is shutting down
    try client.close()
    catch { case NonFatal(_) => () }
    destroy()
    org.apache.commons.io.FileUtils.deleteQuietly(dir.toFile)
  }

  private def destroy(): Unit = {
    process.destroy()
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly()
      process.waitFor(10, TimeUnit.SECONDS)
    }
  }

  /** Whether the server's JVM is running. */
  def isAlive: Boolean = process.isAlive
}

object S3Proxy {
  val Identity = "txlog-test"
  val Credential = "txlog-test-secret"
  private val JarProperty = "txlog.test.s3proxy.jar"

  /** The S3Proxy jar sbt fetched, if the tests run under sbt. */
  def jar: Option[File] =
    Option(System.getProperty(JarProperty)).map(new File(_)).filter(_.isFile)

  /** Starts a server on a free loopback port and waits until it accepts connections. */
  def start(): S3Proxy = {
    val j = jar.getOrElse {
      throw new IllegalStateException(
        s"S3Proxy jar not found: run the tests through sbt, which sets -D$JarProperty"
      )
    }
    // A port can be taken between probing and binding: try a few.
    val attempts = Iterator.continually(tryStart(j)).take(3).flatten
    if (attempts.hasNext) attempts.next()
    else throw new IllegalStateException("S3Proxy did not start on a free port in 3 attempts")
  }

  private def freePort(): Int = {
    val s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress)
    try s.getLocalPort
    finally s.close()
  }

  private def tryStart(jar: File): Option[S3Proxy] = {
    val port = freePort()
    val dir = txlog.testing.TempDirs.create("s3proxy")
    val props = dir.resolve("s3proxy.conf")
    Files.write(
      props,
      Seq(
        s"s3proxy.endpoint=http://127.0.0.1:$port",
        "s3proxy.authorization=aws-v2-or-v4",
        s"s3proxy.identity=$Identity",
        s"s3proxy.credential=$Credential",
        "jclouds.provider=transient-nio2",
        s"jclouds.identity=$Identity",
        s"jclouds.credential=$Credential"
      ).mkString("", "\n", "\n").getBytes(UTF_8)
    )
    val log = dir.resolve("s3proxy.log")
    val java = new File(new File(System.getProperty("java.home"), "bin"), "java").getPath
    val pb =
      new ProcessBuilder(java, "-Xmx512m", "-jar", jar.getPath, "--properties", props.toString)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile)
    pb.environment().put("LOG_LEVEL", "warn")
    val p = pb.start()
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60)
    while (p.isAlive && System.nanoTime() < deadline && !listening(port)) Thread.sleep(100)
    if (p.isAlive && listening(port)) Some(new S3Proxy(port, p, dir))
    else {
      p.destroyForcibly()
      org.apache.commons.io.FileUtils.deleteQuietly(dir.toFile)
      None
    }
  }

  private def listening(port: Int): Boolean = {
    val s = new Socket()
    try { s.connect(new InetSocketAddress("127.0.0.1", port), 200); true }
    catch { case NonFatal(_) => false }
    finally s.close()
  }
}
