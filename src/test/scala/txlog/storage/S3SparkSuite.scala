package txlog.storage

import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.{Fixtures, SparkSuite}

/** A [[SparkSuite]] whose session reaches a local S3 server of its own ([[S3Proxy]], started before
  * the session and stopped after it) through S3A, with `buckets` created. Bucket names must be
  * unique across suites: S3A file systems are cached per bucket for the whole test JVM.
  */
trait S3SparkSuite extends SparkSuite {
  @transient private var server: S3Proxy = _

  /** The buckets the suite uses, created at start. */
  def buckets: Seq[String]

  /** Session settings of the suite besides those reaching the server. */
  def suiteConf: Map[String, String] = Map.empty

  def s3: S3Proxy = server

  override def extraConf: Map[String, String] = server.sparkConf ++ suiteConf

  override def beforeAll(): Unit = {
    server = S3Proxy.start()
    buckets.foreach(server.createBucket)
    super.beforeAll()
  }

  override def afterAll(): Unit = {
    try super.afterAll()
    finally if (server != null) { server.stop(); server = null }
  }

  /** The file system of `path`, configured as the session configures it. */
  def fsOf(path: String): FileSystem =
    new Path(path).getFileSystem(spark.sessionState.newHadoopConf())

  /** Whether S3A offers the conditional create on `bucket` (hadoop-aws 3.4.2+, HADOOP-19256; Spark
    * 4.0 bundles 3.4.1). Without it txlog refuses to write to S3 unless single-writer mode is set.
    * Asked of S3A itself: the Hadoop client jars on a test classpath can be newer than its
    * hadoop-aws.
    */
  def conditionalCreate(bucket: String): Boolean = {
    val dir = new Path(s"s3a://$bucket/")
    fsOf(dir.toString).hasPathCapability(dir, ObjectLogStore.ConditionalCapability)
  }

  /** Whether txlog can put-if-absent on `bucket`: S3A's conditional create, or the conditional PUT
    * through S3A's AWS SDK client ([[S3ConditionalPut]], hadoop-aws 3.3.1+).
    */
  def atomicPut(bucket: String): Boolean =
    conditionalCreate(bucket) ||
      S3ConditionalPut.forFileSystem(fsOf(s"s3a://$bucket/")).exists(_.isRight)

  /** Whether S3A here is built on the AWS SDK v1 (hadoop-aws 3.3, Spark 3.5's). */
  def sdkV1: Boolean =
    try { Class.forName("org.apache.hadoop.fs.s3a.S3AInternals"); false }
    catch { case _: ClassNotFoundException => true }

  /** The settings that put [[S3Faults]] into S3A's SDK client, v2 or v1. */
  def faultConf: Map[String, String] =
    if (sdkV1) {
      Map(
        "spark.hadoop.fs.s3a.audit.enabled" -> "true",
        "spark.hadoop.fs.s3a.audit.request.handlers" -> classOf[S3FaultHandlerV1].getName
      )
    } else {
      Map(
        "spark.hadoop.fs.s3a.audit.enabled" -> "true",
        "spark.hadoop.fs.s3a.audit.execution.interceptors" -> classOf[S3FaultInterceptor].getName
      )
    }

  /** Copies the fixture `name` to `s3a://<bucket>/<prefix>` and returns that table path. */
  def copyFixture(name: String, bucket: String, prefix: String): String = {
    val n = s3.upload(Fixtures.root.resolve(name), bucket, prefix)
    assert(n > 0, s"fixture $name is empty")
    s"s3a://$bucket/$prefix"
  }
}
