package txlog.storage

import java.io.Closeable
import java.lang.reflect.Method
import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.storage.S3PutClient.{call, perS3AClass}

/** S3A's own AWS SDK client and request factory, reached by reflection (hadoop-aws is the
  * cluster's), for the requests S3A has no call for: a listing that starts after a key
  * ([[S3ListAfter]]) and a GET without a HEAD before it ([[S3Get]]). Requests built by S3A's
  * factory carry the table's S3A settings (requester-pays, encryption, auditing), and S3A's client
  * its credentials, endpoint and retries. v2 is the SDK of hadoop-aws 3.4+, v1 that of 3.3.
  */
private[txlog] object S3AClients {

  /** S3A's bucket, key, request factory and audit span methods, common to both SDKs. */
  class Common(cls: Class[_]) {
    private val bucketOf = cls.getMethod("getBucket")
    private val keyOf = cls.getMethod("pathToKey", classOf[Path])
    private val factoryOf = cls.getMethod("getRequestFactory")
    private val spanOf: Option[Method] =
      cls.getMethods.find(m => m.getName == "createSpan" && m.getParameterCount == 3)
    protected val loader: ClassLoader = cls.getClassLoader
    protected def factoryMethod(name: String, params: Class[_]*): Method =
      Class
        .forName("org.apache.hadoop.fs.s3a.api.RequestFactory", false, loader)
        .getMethod(name, params: _*)
    def bucket(fs: FileSystem): String = call(bucketOf, fs).asInstanceOf[String]
    def key(fs: FileSystem, p: Path): String = call(keyOf, fs, p).asInstanceOf[String]
    def factory(fs: FileSystem): AnyRef = call(factoryOf, fs)

    /** Runs `body` in an audit span of `fs` named `operation` on `key`, closed after. */
    def inSpan[T](fs: FileSystem, operation: String, key: String)(body: => T): T = {
      val span = spanOf.map(m => call(m, fs, operation, key, null).asInstanceOf[Closeable])
      try body
      finally
        span.foreach(s =>
          try s.close()
          catch { case NonFatal(_) => () }
        )
    }
  }

  /** S3A's AWS SDK v2 client (hadoop-aws 3.4+) and its list and get requests. */
  final class V2(cls: Class[_]) extends Common(cls) {
    import software.amazon.awssdk.services.s3.S3Client
    import software.amazon.awssdk.services.s3.model.{GetObjectRequest, ListObjectsV2Request}

    private val internalsOf = cls.getMethod("getS3AInternals")
    private val clientOf = Class
      .forName("org.apache.hadoop.fs.s3a.S3AInternals", false, loader)
      .getMethod("getAmazonS3Client", classOf[String])
    private val newList = factoryMethod(
      "newListObjectsV2RequestBuilder",
      classOf[String],
      classOf[String],
      classOf[Int]
    )
    private val newGet = factoryMethod("newGetObjectRequestBuilder", classOf[String])
    def client(fs: FileSystem): S3Client =
      call(clientOf, call(internalsOf, fs), "txlog").asInstanceOf[S3Client]
    def list(fs: FileSystem, prefix: String, page: Int): ListObjectsV2Request.Builder =
      call(newList, factory(fs), prefix, "/", Integer.valueOf(page))
        .asInstanceOf[ListObjectsV2Request.Builder]
    def get(fs: FileSystem, key: String): GetObjectRequest =
      call(newGet, factory(fs), key).asInstanceOf[GetObjectRequest.Builder].build()
  }

  /** S3A's AWS SDK v1 client (hadoop-aws 3.3, as Spark 3.5 bundles) and its requests. */
  final class V1(cls: Class[_]) extends Common(cls) {
    import com.amazonaws.services.s3.AmazonS3
    import com.amazonaws.services.s3.model.{GetObjectRequest, ListObjectsV2Request}

    private val clientOf = cls.getMethod("getAmazonS3ClientForTesting", classOf[String])
    require(clientOf.getReturnType.getName == "com.amazonaws.services.s3.AmazonS3", "SDK v1")
    private val newList =
      factoryMethod("newListObjectsV2Request", classOf[String], classOf[String], classOf[Int])
    private val newGet = factoryMethod("newGetObjectRequest", classOf[String])
    def client(fs: FileSystem): AmazonS3 = call(clientOf, fs, "txlog").asInstanceOf[AmazonS3]
    def list(fs: FileSystem, prefix: String, page: Int): ListObjectsV2Request =
      call(newList, factory(fs), prefix, "/", Integer.valueOf(page))
        .asInstanceOf[ListObjectsV2Request]
    def get(fs: FileSystem, key: String): GetObjectRequest =
      call(newGet, factory(fs), key).asInstanceOf[GetObjectRequest]
  }

  private val v2s = new ConcurrentHashMap[Class[_], Option[V2]]()
  private val v1s = new ConcurrentHashMap[Class[_], Option[V1]]()

  /** The SDK v2 access of `fs` when it is S3A on hadoop-aws 3.4+ with the SDK loadable. */
  def v2(fs: FileSystem): Option[V2] =
    try perS3AClass(v2s, fs)(new V2(_))
    catch { case _: LinkageError => None }

  /** The SDK v1 access of `fs` when it is S3A on hadoop-aws 3.3 with the SDK loadable. */
  def v1(fs: FileSystem): Option[V1] =
    try perS3AClass(v1s, fs)(new V1(_))
    catch { case _: LinkageError => None }
}
