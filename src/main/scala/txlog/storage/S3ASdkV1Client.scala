package txlog.storage

import java.io.{Closeable, InputStream}
import java.lang.reflect.Method
import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import com.amazonaws.{AmazonServiceException, ResetException}
import com.amazonaws.services.s3.AmazonS3
import com.amazonaws.services.s3.model.{ObjectMetadata, PutObjectRequest}
import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.storage.S3PutClient._

/** The conditional PUT through S3A's own AWS SDK v1 client (hadoop-aws 3.3, as Spark 3.5 bundles:
  * EMR 7 and Databricks 16.4 run that line), with the request and its metadata built by S3A's
  * request factory, so credentials, endpoint, region, encryption and request auditing are the
  * table's S3A settings. hadoop-aws is the cluster's: S3A is reached by reflection.
  */
private[txlog] final class S3ASdkV1Client private (fs: FileSystem, access: S3ASdkV1Client.Access)
    extends S3PutClient {

  def via: String = "S3A's AWS SDK v1 client"
  def bucket: String = access.bucket(fs)
  def key(p: Path): String = access.key(fs, p)

  def putOnce(key: String, body: Body): Answer = {
    val span = access.span(fs, key)
    try S3ASdkV1Client.put(access.client(fs), body, in => access.request(fs, key, body.length, in))
    finally span.foreach(c => closeQuietly(c))
  }

  def delete(key: String): Unit = access.client(fs).deleteObject(bucket, key)

  private def closeQuietly(c: Closeable): Unit =
    try c.close()
    catch { case NonFatal(_) => () }
}

private[txlog] object S3ASdkV1Client {
  private val byClass = new ConcurrentHashMap[Class[_], Option[Access]]()

  /** Times a PUT whose stream the SDK could not rewind for its own retry is sent again. */
  private val ResendAttempts = 3

  /** The client of `fs` when it is S3A with an AWS SDK v1 client (hadoop-aws 3.3), else None. */
  def of(fs: FileSystem): Option[S3ASdkV1Client] =
    // None for hadoop-aws 3.4+ (SDK v2), before 3.3.1, or no SDK v1 where txlog is loaded.
    perS3AClass(byClass, fs)(new Access(_)).map(new S3ASdkV1Client(fs, _))

  /** One conditional PUT of `body` through `client`, the request made by `request` around a stream
    * of the body. A stream the SDK cannot rewind for a retry of its own (a staged file, beyond the
    * SDK's read limit) fails with a ResetException: it is opened anew and the PUT sent again.
    */
  def put(client: AmazonS3, body: Body, request: InputStream => PutObjectRequest): Answer = {
    var attempt = 1
    while (true) {
      val in = body.open()
      try {
        val r = request(in)
        r.putCustomRequestHeader("If-None-Match", "*")
        client.putObject(r)
        return Created
      } catch {
        case e: AmazonServiceException if ConditionalStatuses.contains(e.getStatusCode) =>
          return Refused(e.getStatusCode, e.getMessage)
        case _: ResetException if attempt < ResendAttempts => attempt += 1
      } finally {
        try in.close()
        catch { case NonFatal(_) => () }
      }
    }
    throw new IllegalStateException("unreachable")
  }

  /** S3A's methods, looked up once per class: the bucket, the key of a path, the SDK v1 client, a
    * PUT request and its metadata built by S3A's request factory (hadoop-aws 3.3.1+), and an audit
    * span.
    */
  private final class Access(cls: Class[_]) {
    private val loader = cls.getClassLoader
    private val clientOf = cls.getMethod("getAmazonS3ClientForTesting", classOf[String])
    require(
      clientOf.getReturnType.getName == "com.amazonaws.services.s3.AmazonS3",
      "S3A on the AWS SDK v1"
    )
    private val bucketOf = cls.getMethod("getBucket")
    private val keyOf = cls.getMethod("pathToKey", classOf[Path])
    private val factoryOf = cls.getMethod("getRequestFactory")
    private val factory =
      Class.forName("org.apache.hadoop.fs.s3a.api.RequestFactory", false, loader)
    private val newMetadata = factory.getMethod("newObjectMetadata", classOf[Long])
    private val newPut = factory.getMethod(
      "newPutObjectRequest",
      classOf[String],
      classOf[ObjectMetadata],
      classOf[InputStream]
    )
    private val spanOf: Option[Method] =
      cls.getMethods.find(m => m.getName == "createSpan" && m.getParameterCount == 3)

    def bucket(fs: FileSystem): String = call(bucketOf, fs).asInstanceOf[String]
    def key(fs: FileSystem, p: Path): String = call(keyOf, fs, p).asInstanceOf[String]
    def client(fs: FileSystem): AmazonS3 =
      call(clientOf, fs, "txlog put-if-absent").asInstanceOf[AmazonS3]
    def request(fs: FileSystem, key: String, length: Long, in: InputStream): PutObjectRequest = {
      val f = call(factoryOf, fs)
      val metadata = call(newMetadata, f, java.lang.Long.valueOf(length))
      call(newPut, f, key, metadata, in).asInstanceOf[PutObjectRequest]
    }
    def span(fs: FileSystem, key: String): Option[Closeable] =
      spanOf.map(m => call(m, fs, "txlog_put_if_absent", key, null).asInstanceOf[Closeable])
  }
}
