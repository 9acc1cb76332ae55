package txlog.storage

import java.io.{FileNotFoundException, FilterInputStream, InputStream, IOException}

import org.apache.hadoop.fs.{FileSystem, Path}

/** Opens an object of S3A with one GET, where S3A's `open` sends a HEAD first (for its length and
  * version): a log file is read whole and never rewritten, so the HEAD buys nothing, and on a log
  * of many small commits it doubles the requests, each a round trip of tens of milliseconds. The
  * GET goes through S3A's own AWS SDK client ([[S3AClients]]). A missing object is a
  * FileNotFoundException, any other failure of the store (opening or reading) an IOException, as
  * S3A's own stream raises them. On the AWS SDK v2, a small object is read with a lean GET
  * ([[S3LeanGet]]) where S3A's settings allow, and through S3A's client when it cannot answer.
  */
private[txlog] object S3Get {

  /** The opener of `fs`'s objects when it is S3A on an AWS SDK txlog can reach; None otherwise
    * (then `fs.open`).
    */
  def of(fs: FileSystem): Option[Path => InputStream] =
    if (!S3PutClient.isS3A(fs.getClass)) None
    else S3AClients.v2(fs).map(V2.opener(fs, _)).orElse(S3AClients.v1(fs).map(V1.opener(fs, _)))

  /** The opener both SDKs share: `get` (the object of a key, in an audit span of `fs`) with a
    * missing object (`notFound`) a FileNotFoundException and any other SDK failure (`sdk`), while
    * opening or reading, an IOException.
    */
  private def opener(fs: FileSystem, access: S3AClients.Common)(
      sdk: Throwable => Boolean,
      notFound: Throwable => Boolean
  )(get: String => InputStream): Path => InputStream = path => {
    val key = access.key(fs, path)
    val in =
      try access.inSpan(fs, "txlog_get", key)(get(key))
      catch {
        case e: RuntimeException if notFound(e) => throw missing(path, e)
        case e: RuntimeException if sdk(e)      => throw failed(path, e)
      }
    translating(in, path, sdk)
  }

  // Each SDK's code in an object of its own, loaded only where that SDK is: the JVM loads the
  // classes a method catches when it verifies the method's class.
  private object V2 {
    import software.amazon.awssdk.core.exception.SdkException
    import software.amazon.awssdk.services.s3.model.S3Exception
    def opener(fs: FileSystem, access: S3AClients.V2): Path => InputStream = {
      val sdk = S3Get.opener(fs, access)(
        _.isInstanceOf[SdkException],
        { case e: S3Exception => e.statusCode == 404; case _ => false }
      )(key => access.client(fs).getObject(access.get(fs, key)))
      S3LeanGet.of(fs, access).fold(sdk) { lean => path =>
        lean.get(access.key(fs, path), path).getOrElse(sdk(path))
      }
    }
  }

  private object V1 {
    import com.amazonaws.AmazonClientException
    import com.amazonaws.services.s3.model.AmazonS3Exception
    def opener(fs: FileSystem, access: S3AClients.V1): Path => InputStream =
      S3Get.opener(fs, access)(
        _.isInstanceOf[AmazonClientException],
        { case e: AmazonS3Exception => e.getStatusCode == 404; case _ => false }
      )(key => access.client(fs).getObject(access.get(fs, key)).getObjectContent)
  }

  private def missing(path: Path, e: Exception): IOException = {
    val f = new FileNotFoundException(s"$path does not exist (GET: ${e.getMessage})")
    f.initCause(e)
    f
  }

  private def failed(path: Path, e: Exception): IOException =
    new IOException(s"GET of $path failed: $e", e)

  /** `in` with the SDK's unchecked failures while reading raised as IOExceptions. */
  private def translating(in: InputStream, path: Path, sdk: Throwable => Boolean): InputStream =
    new FilterInputStream(in) {
      private def io[T](body: => T): T =
        try body
        catch { case e: RuntimeException if sdk(e) => throw failed(path, e) }
      override def read(): Int = io(super.read())
      override def read(b: Array[Byte], off: Int, len: Int): Int = io(super.read(b, off, len))
      override def skip(n: Long): Long = io(super.skip(n))
      override def close(): Unit = io(super.close())
    }
}
