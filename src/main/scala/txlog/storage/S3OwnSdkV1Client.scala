package txlog.storage

import java.util.concurrent.ConcurrentHashMap

import com.amazonaws.{ClientConfiguration, Protocol}
import com.amazonaws.auth.{
  AWSCredentialsProvider,
  AWSStaticCredentialsProvider,
  BasicAWSCredentials,
  BasicSessionCredentials,
  DefaultAWSCredentialsProviderChain
}
import com.amazonaws.client.builder.AwsClientBuilder.EndpointConfiguration
import com.amazonaws.services.s3.{AmazonS3, AmazonS3ClientBuilder}
import com.amazonaws.services.s3.model.{ObjectMetadata, PutObjectRequest}
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.storage.S3PutClient._

/** The conditional PUT through an AWS SDK v1 client of txlog's own, for S3 tables whose file system
  * is not S3A and so has no client txlog can borrow: EMRFS (`s3://` on EMR) and Databricks' shaded
  * S3A. Both runtimes bring the SDK v1 (txlog ships none). The client is configured from the
  * table's Hadoop configuration in S3A's names, per bucket first (`fs.s3a.bucket.<bucket>.*`): the
  * endpoint (`fs.s3a.endpoint`, with `fs.s3a.connection.ssl.enabled`), region
  * (`fs.s3a.endpoint.region`), path-style access (`fs.s3a.path.style.access`) and static
  * credentials (`fs.s3a.access.key`, `fs.s3a.secret.key`, `fs.s3a.session.token`, also from Hadoop
  * credential providers); whatever is not set comes from the SDK's default chains (environment,
  * system properties, profile, the instance's role and region), which is what EMRFS uses.
  */
private[txlog] final class S3OwnSdkV1Client private (val bucket: String, client: AmazonS3)
    extends S3PutClient {

  def via: String = "txlog's own AWS SDK v1 client (the file system is not S3A)"

  def key(p: Path): String = p.toUri.getPath.stripPrefix("/")

  def putOnce(key: String, body: Body): Answer =
    S3ASdkV1Client.put(
      client,
      body,
      in => {
        val metadata = new ObjectMetadata()
        metadata.setContentLength(body.length)
        new PutObjectRequest(bucket, key, in, metadata)
      }
    )

  def delete(key: String): Unit = client.deleteObject(bucket, key)
}

private[txlog] object S3OwnSdkV1Client {

  /** The schemes of S3 tables. */
  val Schemes: Set[String] = Set("s3", "s3a", "s3n")

  /** The clients made, one per bucket and client settings: bounded by the buckets a JVM writes to
    * (times the distinct configurations it names for them).
    */
  private val clients = new ConcurrentHashMap[Settings, AmazonS3]()

  /** The client settings of one bucket, read from the table's Hadoop configuration. */
  private final case class Settings(
      endpoint: Option[String],
      region: Option[String],
      https: Boolean,
      pathStyle: Boolean,
      credentials: Option[(String, String, Option[String])]
  ) {
    override def toString: String = // never the secrets
      s"Settings($endpoint, $region, https=$https, pathStyle=$pathStyle, " +
        s"static credentials=${credentials.isDefined})"
  }

  /** The client for `fs`, when it is an S3 file system other than S3A. */
  def of(fs: FileSystem): Option[S3OwnSdkV1Client] = {
    val uri = fs.getUri
    if (isS3A(fs.getClass) || !Schemes.contains(uri.getScheme) || uri.getHost == null) None
    else {
      val bucket = uri.getHost
      val settings = settingsOf(fs.getConf, bucket)
      Some(new S3OwnSdkV1Client(bucket, clients.computeIfAbsent(settings, build)))
    }
  }

  private def settingsOf(conf: Configuration, bucket: String): Settings = {
    def get(suffix: String): Option[String] =
      Seq(s"fs.s3a.bucket.$bucket.$suffix", s"fs.s3a.$suffix").iterator
        .flatMap(k => Option(conf.getTrimmed(k)))
        .find(_.nonEmpty)
    def secret(suffix: String): Option[String] =
      Seq(s"fs.s3a.bucket.$bucket.$suffix", s"fs.s3a.$suffix").iterator
        .flatMap(k => Option(conf.getPassword(k)).map(new String(_)))
        .find(_.nonEmpty)
    val credentials = for {
      access <- secret("access.key")
      key <- secret("secret.key")
    } yield (access, key, secret("session.token"))
    Settings(
      // S3A's default endpoint is AWS's own, which the SDK finds from the region.
      get("endpoint").filterNot(e => e == "s3.amazonaws.com" || e == "s3-external-1.amazonaws.com"),
      get("endpoint.region"),
      get("connection.ssl.enabled").forall(_.toBoolean),
      get("path.style.access").exists(_.toBoolean),
      credentials
    )
  }

  private def build(s: Settings): AmazonS3 = {
    val provider: AWSCredentialsProvider = s.credentials match {
      case Some((access, key, Some(token))) =>
        new AWSStaticCredentialsProvider(new BasicSessionCredentials(access, key, token))
      case Some((access, key, None)) =>
        new AWSStaticCredentialsProvider(new BasicAWSCredentials(access, key))
      case None => DefaultAWSCredentialsProviderChain.getInstance()
    }
    val config = new ClientConfiguration()
      .withProtocol(if (s.https) Protocol.HTTPS else Protocol.HTTP)
    val builder = AmazonS3ClientBuilder
      .standard()
      .withCredentials(provider)
      .withClientConfiguration(config)
      .withPathStyleAccessEnabled(s.pathStyle)
    (s.endpoint, s.region) match {
      case (Some(endpoint), region) =>
        builder.withEndpointConfiguration(new EndpointConfiguration(endpoint, region.orNull))
      case (None, Some(region)) =>
        builder.withRegion(region).withForceGlobalBucketAccessEnabled(true)
      case (None, None) => builder.withForceGlobalBucketAccessEnabled(true)
    }
    builder.build()
  }
}
