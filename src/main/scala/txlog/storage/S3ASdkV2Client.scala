package txlog.storage

import java.io.{Closeable, InputStream}
import java.lang.reflect.Method
import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileSystem, Path}
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration
import software.amazon.awssdk.core.sync.RequestBody
import software.amazon.awssdk.http.ContentStreamProvider
import software.amazon.awssdk.services.s3.S3Client
import software.amazon.awssdk.services.s3.model.{DeleteObjectRequest, PutObjectRequest, S3Exception}

import txlog.storage.S3PutClient._

/** The conditional PUT through S3A's own AWS SDK v2 client (hadoop-aws 3.4+, whose S3A has no
  * conditional create before 3.4.2: Spark 4.0, EMR 8, Databricks 17.3), with the request built by
  * S3A's request factory, so credentials, endpoint, region, encryption and request auditing are the
  * table's S3A settings. hadoop-aws is the cluster's: S3A is reached by reflection.
  */
private[txlog] final class S3ASdkV2Client private (fs: FileSystem, access: S3ASdkV2Client.Access)
    extends S3PutClient {

  def via: String = "S3A's AWS SDK v2 client"
  def bucket: String = access.bucket(fs)
  def key(p: Path): String = access.key(fs, p)

  def putOnce(key: String, body: Body): Answer = {
    val span = access.span(fs, key)
    var open: Option[InputStream] = None
    try {
      val builder = access.putBuilder(fs, key, body.length)
      // Added to what S3A's factory set, never in place of it.
      val conf = Option(builder.overrideConfiguration())
        .map(_.toBuilder)
        .getOrElse(AwsRequestOverrideConfiguration.builder())
        .putHeader("If-None-Match", "*")
        .build()
      val request = builder.overrideConfiguration(conf).build()
      val requestBody = body match {
        case Bytes(b) => RequestBody.fromBytes(b)
        case _        =>
          // Opened anew for each attempt the SDK makes.
          val provider: ContentStreamProvider = () => {
            open.foreach(closeQuietly)
            val in = body.open()
            open = Some(in)
            in
          }
          RequestBody.fromContentProvider(provider, body.length, "application/octet-stream")
      }
      access.client(fs).putObject(request, requestBody)
      Created
    } catch {
      case e: S3Exception if ConditionalStatuses.contains(e.statusCode) =>
        Refused(e.statusCode, e.getMessage)
    } finally {
      open.foreach(closeQuietly)
      span.foreach(closeQuietly)
    }
  }

  def delete(key: String): Unit =
    access.client(fs).deleteObject(DeleteObjectRequest.builder().bucket(bucket).key(key).build())

  private def closeQuietly(c: Closeable): Unit =
    try c.close()
    catch { case NonFatal(_) => () }
}

private[txlog] object S3ASdkV2Client {
  private val byClass = new ConcurrentHashMap[Class[_], Option[Access]]()

  /** The client of `fs` when it is S3A with an AWS SDK v2 client (hadoop-aws 3.4+), else None. */
  def of(fs: FileSystem): Option[S3ASdkV2Client] =
    // None for hadoop-aws before 3.4 (SDK v1), or no SDK v2 where txlog is loaded.
    perS3AClass(byClass, fs)(new Access(_)).map(new S3ASdkV2Client(fs, _))

  /** S3A's methods, looked up once per class: the bucket, the key of a path, the SDK v2 client, a
    * PUT request built by S3A's request factory (its encryption, ACL and storage class settings
    * applied), and an audit span.
    */
  private final class Access(cls: Class[_]) {
    private val loader = cls.getClassLoader
    private def iface(name: String) = Class.forName(name, false, loader)
    iface("software.amazon.awssdk.services.s3.S3Client") // the SDK v2 S3A was built with
    private val internalsOf = cls.getMethod("getS3AInternals")
    private val clientOf =
      iface("org.apache.hadoop.fs.s3a.S3AInternals").getMethod("getAmazonS3Client", classOf[String])
    private val bucketOf = cls.getMethod("getBucket")
    private val keyOf = cls.getMethod("pathToKey", classOf[Path])
    private val factoryOf = cls.getMethod("getRequestFactory")
    private val putOptions: AnyRef = {
      val options = iface("org.apache.hadoop.fs.s3a.impl.PutObjectOptions")
      // hadoop-aws 3.5: defaultOptions(); 3.4: keepingDirs() (the same: no directory markers).
      val make = options.getMethods
        .find(m =>
          Seq("defaultOptions", "keepingDirs").contains(m.getName) && m.getParameterCount == 0
        )
        .getOrElse(throw new NoSuchMethodException("PutObjectOptions.defaultOptions"))
      make.invoke(null)
    }
    private val newPut = iface("org.apache.hadoop.fs.s3a.api.RequestFactory").getMethods
      .find(m => m.getName == "newPutObjectRequestBuilder" && m.getParameterCount == 4)
      .getOrElse(throw new NoSuchMethodException("RequestFactory.newPutObjectRequestBuilder"))
    private val spanOf: Option[Method] =
      cls.getMethods.find(m => m.getName == "createSpan" && m.getParameterCount == 3)

    def bucket(fs: FileSystem): String = call(bucketOf, fs).asInstanceOf[String]
    def key(fs: FileSystem, p: Path): String = call(keyOf, fs, p).asInstanceOf[String]
    def client(fs: FileSystem): S3Client =
      call(clientOf, call(internalsOf, fs), "txlog put-if-absent").asInstanceOf[S3Client]
    def putBuilder(fs: FileSystem, key: String, length: Long): PutObjectRequest.Builder =
      call(
        newPut,
        call(factoryOf, fs),
        key,
        putOptions,
        java.lang.Long.valueOf(length),
        java.lang.Boolean.FALSE
      ).asInstanceOf[PutObjectRequest.Builder]
    def span(fs: FileSystem, key: String): Option[Closeable] =
      spanOf.map(m => call(m, fs, "txlog_put_if_absent", key, null).asInstanceOf[Closeable])
  }
}
