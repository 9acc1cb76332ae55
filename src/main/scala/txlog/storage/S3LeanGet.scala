package txlog.storage

import java.io.{FileNotFoundException, InputStream}
import java.net.URI

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileSystem, Path}
import org.slf4j.LoggerFactory
import software.amazon.awssdk.http.{HttpExecuteRequest, HttpExecuteResponse, SdkHttpClient}
import software.amazon.awssdk.http.{SdkHttpFullRequest, SdkHttpMethod, SdkHttpRequest}
import software.amazon.awssdk.http.apache.ApacheHttpClient
import software.amazon.awssdk.http.auth.aws.signer.{AwsV4FamilyHttpSigner, AwsV4HttpSigner}
import software.amazon.awssdk.http.auth.spi.signer.SignRequest
import software.amazon.awssdk.identity.spi.{AwsCredentialsIdentity, IdentityProvider}

/** A GET of a small log object sent past the AWS SDK's request pipeline: signed by the SDK's own
  * SigV4 signer with the credentials of S3A's client and sent by the SDK's Apache HTTP client
  * (S3A's default) to the endpoint and region of S3A's client, on the calling thread. Loading a log
  * of many small commits from S3 is bound by CPU per request, and the SDK's pipeline (interceptors,
  * endpoint and auth scheme resolution, metrics, S3A's audit span) was three quarters of it
  * (bench/history).
  *
  * It only ever answers what the SDK would: the bytes of an object that came back whole with 200,
  * or FileNotFoundException on 404. Anything else (another status, an object over [[MaxBytes]], a
  * failure to connect or read) is `None`, and the caller sends the request through S3A's client,
  * with its retries and error translation ([[S3Get]]). A refusal (301, 307, 400, 401, 403) or a TLS
  * failure switches lean GETs off for the file system: its settings are not ones this path
  * reproduces. Where S3A's settings change a GET (see [[S3LeanGet.of]]) it is never used. Holds at
  * most [[MaxBytes]] per GET in flight, and S3A's `fs.s3a.connection.maximum` connections.
  */
private[txlog] final class S3LeanGet private (
    bucket: String,
    base: S3LeanGet.Endpoint,
    region: String,
    credentials: IdentityProvider[_ <: AwsCredentialsIdentity],
    http: SdkHttpClient
) {
  import S3LeanGet._

  @volatile private var switchedOff = false
  private val answers = new java.util.concurrent.atomic.AtomicLong()

  /** Whether lean GETs are still sent (false once one was refused). */
  def active: Boolean = !switchedOff

  /** How many GETs this path answered (the object, or its absence) since it was made. */
  def answered: Long = answers.get

  /** The object of `key` (the file `path`), whole; None when S3A's client must answer. */
  def get(key: String, path: Path): Option[InputStream] =
    if (switchedOff) None
    else {
      // Credentials that cannot be resolved now (a closed file system's), a connection refused
      // or reset, a timeout: S3A's client is asked, and reports what it finds.
      val response =
        try
          Some(
            http.prepareRequest(HttpExecuteRequest.builder().request(request(key)).build()).call()
          )
        catch {
          case e: javax.net.ssl.SSLException => off(s"TLS: $e"); None
          case NonFatal(_)                   => None
        }
      response.flatMap(r => answer(r, key, path))
    }

  /** The bytes of a whole 200 within [[MaxBytes]]; FileNotFoundException on 404; else None. The
    * connection goes back to the pool after a body read whole, and is closed otherwise.
    */
  private def answer(r: HttpExecuteResponse, key: String, path: Path): Option[InputStream] = {
    val status = r.httpResponse.statusCode
    val body = r.responseBody
    val length = r.httpResponse.firstMatchingHeader("Content-Length")
    def drop(): Unit = if (body.isPresent) body.get.abort()
    status match {
      case 200
          if length.isPresent && length.get.nonEmpty && length.get.length < 12 &&
            length.get.forall(_.isDigit) && length.get.toLong <= MaxBytes =>
        val bytes =
          try body.map[Array[Byte]](in => readAll(in, length.get.toInt)).orElse(null)
          catch { case NonFatal(_) => drop(); null }
        Option(bytes).map { b =>
          answers.incrementAndGet()
          new java.io.ByteArrayInputStream(b)
        }
      case 404 =>
        drop()
        answers.incrementAndGet()
        throw new FileNotFoundException(s"$path does not exist (GET)")
      case s =>
        drop()
        if (Refusals(s)) {
          // S3 names the bucket's region when the request went to another one.
          val elsewhere = r.httpResponse.firstMatchingHeader("x-amz-bucket-region").orElse(region)
          val hint =
            if (elsewhere == region) ""
            else s" (the bucket is in $elsewhere: set fs.s3a.endpoint.region to it)"
          off(s"HTTP $s for $key$hint")
        }
        None
    }
  }

  /** `length` bytes of `in`, closed after; null when it ends before or goes on after them. */
  private def readAll(in: java.io.InputStream, length: Int): Array[Byte] =
    try {
      val b = in.readNBytes(length)
      if (b.length == length && in.read() < 0) b else null
    } finally in.close()

  private def off(why: String): Unit = if (!switchedOff) {
    switchedOff = true
    Log.warn(s"GETs of log objects of s3a://$bucket go through S3A's client from now on: $why")
  }

  private def request(key: String): SdkHttpRequest = {
    val unsigned = SdkHttpFullRequest
      .builder()
      .method(SdkHttpMethod.GET)
      .uri(base.uri(bucket, key))
      .putHeader("x-amz-content-sha256", EmptySha256)
      .build()
    val identity: AwsCredentialsIdentity = credentials.resolveIdentity().join()
    Signer
      .sign(
        SignRequest
          .builder(identity)
          .request(unsigned)
          .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "s3")
          .putProperty(AwsV4HttpSigner.REGION_NAME, region)
          .putProperty(AwsV4FamilyHttpSigner.DOUBLE_URL_ENCODE, java.lang.Boolean.FALSE)
          .putProperty(AwsV4FamilyHttpSigner.NORMALIZE_PATH, java.lang.Boolean.FALSE)
          .build()
      )
      .request()
  }
}

private[txlog] object S3LeanGet {
  private val Log = LoggerFactory.getLogger(classOf[S3LeanGet])
  private val Signer = AwsV4HttpSigner.create()

  /** The largest object a lean GET holds; a larger one goes through S3A's client. */
  val MaxBytes: Int = 1 << 20

  /** Statuses that mean this path's request is not what the store wants (region, signature). */
  private val Refusals = Set(301, 307, 400, 401, 403)
  private val EmptySha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

  /** Where objects are: scheme, host and port (-1: the scheme's), and whether the bucket is the
    * first path segment (path style) or the host's first label (virtual-hosted).
    */
  final case class Endpoint(scheme: String, host: String, port: Int, pathStyle: Boolean) {
    def uri(bucket: String, key: String): URI = {
      val encoded = software.amazon.awssdk.utils.http.SdkHttpUtils.urlEncodeIgnoreSlashes(key)
      val hostPart = (if (pathStyle) host else s"$bucket.$host") + (if (port < 0) "" else s":$port")
      URI.create(s"$scheme://$hostPart/${if (pathStyle) s"$bucket/" else ""}$encoded")
    }
  }

  private val byFs = java.util.Collections.synchronizedMap(
    new java.util.WeakHashMap[FileSystem, Option[S3LeanGet]]()
  )

  /** The lean GET of `fs` (S3A on the AWS SDK v2, `access` its client), made once per file system
    * instance (a weak map: one entry per live S3A instance, each an HTTP client and its pool); None
    * where S3A's settings change what a GET sends or where it goes, which this path does not
    * reproduce: client-side or customer-key encryption, requester pays, custom signers or SDK
    * interceptors, a proxy (S3A's, or the JVM's or environment's that the SDK honours), access
    * points, FIPS or dual-stack endpoints, S3 Express buckets, a subclass of S3A, no region, or
    * `spark.txlog.storage.leanGet` false.
    */
  def of(fs: FileSystem, access: S3AClients.V2): Option[S3LeanGet] =
    if (!StorageConf.leanGet(fs.getConf)) None
    else byFs.computeIfAbsent(fs, _ => make(fs, access))

  private def make(fs: FileSystem, access: S3AClients.V2): Option[S3LeanGet] =
    try {
      val conf = fs.getConf
      val bucket = access.bucket(fs)
      if (!LeanRules.eligible(fs.getClass.getName, bucket, conf)) None
      else {
        val client = access.client(fs)
        val cfg = client.serviceClientConfiguration()
        val region = Option(cfg.region()).map(_.id)
        val override_ =
          if (cfg.endpointOverride().isPresent) Some(cfg.endpointOverride.get) else None
        val pathStyle = conf.getBoolean("fs.s3a.path.style.access", false)
        for {
          r <- region
          base <- LeanRules.endpoint(override_, r, bucket, pathStyle, conf)
          credentials <- Option(cfg.credentialsProvider())
        } yield {
          val http = ApacheHttpClient
            .builder()
            .maxConnections(Integer.valueOf(conf.getInt("fs.s3a.connection.maximum", 96)))
            .connectionTimeout(java.time.Duration.ofMillis(LeanRules.connectMillis(conf)))
            .socketTimeout(java.time.Duration.ofMillis(LeanRules.socketMillis(conf)))
            // The reaper would hold the pool after its file system is gone; stale connections
            // are checked when leased instead.
            .useIdleConnectionReaper(java.lang.Boolean.FALSE)
            .build()
          new S3LeanGet(bucket, base, r, credentials, http)
        }
      }
    } catch {
      case NonFatal(e) =>
        Log.debug(s"no lean GETs for ${fs.getUri}: $e")
        None
    }
}
