package txlog.storage

import java.io.{ByteArrayInputStream, InputStream}
import java.lang.reflect.{InvocationTargetException, Method}
import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.fs.{FileSystem, Path}

/** One AWS SDK client's share of a conditional PUT ([[S3ConditionalPut]]): the bucket and key of a
  * path, one PUT with `If-None-Match: *`, and a delete. Implemented for S3A's own client with the
  * AWS SDK v2 ([[S3ASdkV2Client]], hadoop-aws 3.4+) and the SDK v1 ([[S3ASdkV1Client]], hadoop-aws
  * 3.3). Neither SDK is shipped with txlog: each implementation loads only where its SDK is.
  */
private[txlog] trait S3PutClient {

  /** What sends the PUTs, for `describe`: "S3A's AWS SDK v2 client". */
  def via: String

  /** The bucket this client writes to. */
  def bucket: String

  /** The object key of `p`. */
  def key(p: Path): String

  /** One PUT of `body` to `key` with `If-None-Match: *` (the SDK may retry it on a network error):
    * [[S3PutClient.Created]], or the error status the store answered with when it is one a
    * conditional PUT can get (412 the key exists, 409 another conditional PUT of it in flight, 400,
    * 405 or 501 the header not taken). Any other failure is thrown as it came.
    */
  def putOnce(key: String, body: S3PutClient.Body): S3PutClient.Answer

  /** Deletes `key`. */
  def delete(key: String): Unit
}

private[txlog] object S3PutClient {

  /** The answer to one conditional PUT. */
  sealed trait Answer
  case object Created extends Answer
  final case class Refused(status: Int, message: String) extends Answer

  /** The statuses [[S3PutClient.putOnce]] answers with rather than throws. */
  val ConditionalStatuses: Set[Int] = Set(400, 405, 409, 412, 501)

  /** The bytes of a PUT, `length` of them, opened anew for each attempt. */
  sealed trait Body {
    def length: Long
    def open(): InputStream
  }

  final case class Bytes(bytes: Array[Byte]) extends Body {
    def length: Long = bytes.length.toLong
    def open(): InputStream = new ByteArrayInputStream(bytes)
  }

  /** A file of `fs` (a staged checkpoint or sidecar), streamed rather than held in memory. */
  final case class Staged(fs: FileSystem, path: Path, length: Long) extends Body {
    def open(): InputStream = fs.open(path)
  }

  /** `m` called on `on`, with the cause of a reflective call's failure thrown as it came. */
  def call(m: Method, on: AnyRef, args: AnyRef*): AnyRef =
    try m.invoke(on, args: _*)
    catch { case e: InvocationTargetException if e.getCause != null => throw e.getCause }

  /** `make(cls)` once per S3A class `cls` (the cache), for `fs` when it is S3A: None when `make`
    * does not find the methods it needs (another hadoop-aws, or its AWS SDK missing).
    */
  def perS3AClass[A](cache: ConcurrentHashMap[Class[_], Option[A]], fs: FileSystem)(
      make: Class[_] => A
  ): Option[A] =
    if (!isS3A(fs.getClass)) None
    else
      cache.computeIfAbsent(
        fs.getClass,
        c =>
          try Some(make(c))
          catch {
            case _: ReflectiveOperationException | _: LinkageError | _: IllegalArgumentException =>
              None
          }
      )

  /** Whether `c` is S3A (the class or a subclass of `org.apache.hadoop.fs.s3a.S3AFileSystem`). */
  def isS3A(c: Class[_]): Boolean =
    c != null && (c.getName == "org.apache.hadoop.fs.s3a.S3AFileSystem" || isS3A(c.getSuperclass))
}
