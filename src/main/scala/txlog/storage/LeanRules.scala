package txlog.storage

import java.net.URI
import java.util.concurrent.TimeUnit.MILLISECONDS

import org.apache.hadoop.conf.Configuration

/** When and where [[S3LeanGet]] may send a GET in place of S3A's client: the S3A settings it
  * honours by not being used, and the endpoint it derives from S3A's client. Pure functions of the
  * file system's configuration (S3A copies a bucket's `fs.s3a.bucket.<b>.*` settings into it).
  */
private[txlog] object LeanRules {

  /** Server-side encryption the store applies by itself: a GET sends nothing for it. */
  private val TransparentEncryption = Set("", "none", "sse-s3", "aes256", "sse-kms", "dsse-kms")

  /** Settings that, when set to anything but empty, change a GET (signing, interceptors, where it
    * is sent).
    */
  private val MustBeEmpty = Seq(
    "fs.s3a.custom.signers",
    "fs.s3a.signing-algorithm",
    "fs.s3a.s3.signing-algorithm",
    "fs.s3a.audit.execution.interceptors",
    "fs.s3a.audit.request.handlers",
    "fs.s3a.proxy.host",
    "fs.s3a.accesspoint.arn"
  )

  /** Switches that, when true, change a GET. */
  private val MustBeOff = Seq(
    "fs.s3a.requester.pays.enabled",
    "fs.s3a.endpoint.fips",
    "fs.s3a.dualstack.enabled",
    "fs.s3a.accesspoint.required"
  )

  /** The proxy settings the AWS SDK's HTTP client honours from the JVM and the environment. */
  private val ProxyProperties = Seq("http.proxyHost", "https.proxyHost")
  private val ProxyVariables = Seq("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")

  /** Whether S3A's settings (`conf`) for `bucket`, on file system class `fsClass`, leave a GET as
    * this path sends it: S3A itself, no customer-key or client-side encryption, nothing of
    * [[MustBeEmpty]] set, nothing of [[MustBeOff]] on, no proxy, not an S3 Express bucket.
    */
  def eligible(
      fsClass: String,
      bucket: String,
      conf: Configuration,
      env: String => Option[String] = k => Option(System.getenv(k)),
      props: String => Option[String] = k => Option(System.getProperty(k))
  ): Boolean = {
    val encryption = Seq("fs.s3a.encryption.algorithm", "fs.s3a.server-side-encryption-algorithm")
      .flatMap(k => Option(conf.getTrimmed(k)))
      .map(_.toLowerCase(java.util.Locale.ROOT))
    fsClass == "org.apache.hadoop.fs.s3a.S3AFileSystem" &&
    !bucket.endsWith("--x-s3") &&
    encryption.forall(TransparentEncryption) &&
    MustBeEmpty.forall(k => Option(conf.getTrimmed(k)).forall(_.isEmpty)) &&
    MustBeOff.forall(k => !conf.getBoolean(k, false)) &&
    ProxyProperties.forall(k => props(k).forall(_.trim.isEmpty)) &&
    ProxyVariables.forall(k => env(k).forall(_.trim.isEmpty))
  }

  /** Where `bucket`'s objects are: S3A's endpoint override (the client's) as it is, with the bucket
    * in the path (`pathStyle`) or the host; without one, AWS's regional endpoint of `region` over
    * https (path style for a bucket with dots, as the SDK does). None where the SDK would resolve
    * something else: a partition other than AWS's commercial and GovCloud regions, https switched
    * off without an endpoint, an endpoint with a path or no host.
    */
  def endpoint(
      endpointOverride: Option[URI],
      region: String,
      bucket: String,
      pathStyle: Boolean,
      conf: Configuration
  ): Option[S3LeanGet.Endpoint] = endpointOverride match {
    case Some(u) =>
      val scheme = Option(u.getScheme).map(_.toLowerCase(java.util.Locale.ROOT))
      val bare = Option(u.getRawPath).forall(p => p.isEmpty || p == "/") && u.getRawQuery == null
      if (!scheme.exists(Set("http", "https")) || u.getHost == null || !bare) None
      else Some(S3LeanGet.Endpoint(scheme.get, u.getHost, u.getPort, pathStyle))
    case None =>
      val commercial = region.matches("(us|eu|ap|ca|sa|me|af|il|mx)(-gov)?-[a-z]+-[0-9]+")
      if (!commercial || !conf.getBoolean("fs.s3a.connection.ssl.enabled", true)) None
      else {
        val path = pathStyle || bucket.contains('.')
        Some(S3LeanGet.Endpoint("https", s"s3.$region.amazonaws.com", -1, path))
      }
  }

  /** S3A's connection timeout (`fs.s3a.connection.establish.timeout`, 30 s by default). */
  def connectMillis(conf: Configuration): Long =
    positive(conf.getTimeDuration("fs.s3a.connection.establish.timeout", 30000L, MILLISECONDS))
      .getOrElse(30000L)

  /** The longest a lean GET waits for any read of its answer: S3A's socket timeout
    * (`fs.s3a.connection.timeout`, 200 s by default), as S3A's own client waits.
    */
  def socketMillis(conf: Configuration): Long =
    positive(conf.getTimeDuration("fs.s3a.connection.timeout", 200000L, MILLISECONDS))
      .getOrElse(200000L)

  private def positive(ms: Long): Option[Long] = if (ms > 0) Some(ms) else None
}
