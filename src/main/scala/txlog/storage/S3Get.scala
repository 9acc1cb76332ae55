package txlog.storage

import java.io.{FileNotFoundException, FilterInputStream, InputStream, IOException}

import org.apache.hadoop.fs.{FileSystem, Path}

/** Opens an object of S3A with one GET, where S3A's `open` sends a HEAD first (for its length and
  * version): a log file is read whole and never rewritten, so the HEAD buys nothing, and on a log
  * of many small commits it doubles the requests, each a round trip of tens of milliseconds. The
  * GET goes through S3A's own AWS SDK client ([[S3AClients]]). A missing object is a
  * FileNotFoundException, any other failure of the store (opening or reading) an IOException, as
  * S3A's own stream raises them.
  */
private[txlog] object S3Get {

  /** The opener of `fs`'s objects when it is S3A on an AWS SDK txlog can reach; None otherwise
    * (then `fs.open`).
    */
  def of(fs: FileSystem): Option[Path => InputStream] =
    if (!S3PutClient.isS3A(fs.getClass)) None
    else S3AClients.v2(fs).map(V2.opener(fs, _)).orElse(S3AClients.v1(fs).map(V1.opener(fs, _)))

  // Each SDK's code in an object of its own: the JVM loads the exception classes a method
  // catches when it verifies the class, and only one SDK is on a classpath.
  private object V2 {
    def opener(fs: FileSystem, access: S3AClients.V2): Path => InputStream = {
      import software.amazon.awssdk.core.exception.SdkException
      import software.amazon.awssdk.services.s3.model.{NoSuchKeyException, S3Exception}
      path => {
        val key = access.key(fs, path)
        val in =
          try access.inSpan(fs, "txlog_get", key)(access.client(fs).getObject(access.get(fs, key)))
          catch {
            case e: NoSuchKeyException                 => throw missing(path, e)
            case e: S3Exception if e.statusCode == 404 => throw missing(path, e)
            case e: SdkException                       => throw failed(path, e)
          }
        translating(in, path, _.isInstanceOf[SdkException])
      }
    }
  }

  private object V1 {
    def opener(fs: FileSystem, access: S3AClients.V1): Path => InputStream = {
      import com.amazonaws.AmazonClientException
      import com.amazonaws.services.s3.model.AmazonS3Exception
      path => {
        val key = access.key(fs, path)
        val in =
          try access.inSpan(fs, "txlog_get", key)(access.client(fs).getObject(access.get(fs, key)))
          catch {
            case e: AmazonS3Exception if e.getStatusCode == 404 => throw missing(path, e)
            case e: AmazonClientException                       => throw failed(path, e)
          }
        translating(in.getObjectContent, path, _.isInstanceOf[AmazonClientException])
      }
    }
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
