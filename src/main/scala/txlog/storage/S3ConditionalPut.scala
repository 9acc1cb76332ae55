package txlog.storage

import java.io.{Closeable, InputStream}
import java.lang.reflect.{InvocationTargetException, Method}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileSystem, Path}
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration
import software.amazon.awssdk.core.sync.RequestBody
import software.amazon.awssdk.http.ContentStreamProvider
import software.amazon.awssdk.services.s3.S3Client
import software.amazon.awssdk.services.s3.model.{DeleteObjectRequest, PutObjectRequest, S3Exception}

/** Put-if-absent on S3 where S3A has no conditional create of its own (hadoop-aws 3.4.0 and 3.4.1:
  * Spark 4.0, EMR 8, Databricks 17.3): one PUT with `If-None-Match: *` (S3 answers 412 when the key
  * exists), sent through S3A's own AWS SDK v2 client and built by S3A's own request factory, so
  * credentials, endpoint, region, encryption and request auditing are the table's S3A settings.
  *
  * hadoop-aws is not on txlog's class path at build time (each cluster brings its own), so S3A is
  * reached by reflection; the AWS SDK v2 classes are those S3A loaded. Before its first write to a
  * bucket, a JVM probes that the store honours the header ([[S3ConditionalPut.probe]]).
  */
private[txlog] final class S3ConditionalPut private (
    fs: FileSystem,
    access: S3ConditionalPut.S3AAccess
) {
  import S3ConditionalPut._

  /** The bucket this client writes to. */
  def bucket: String = access.bucket(fs)

  /** PUTs `length` bytes from `body` to `target` unless the key exists: true when this PUT created
    * it, false when the store refused it (412). A PUT the store answers 409 (another conditional
    * PUT of the key in flight) is sent again. Any other failure is thrown as it came.
    */
  def put(target: Path, body: RequestBody, length: Long): Boolean = {
    val key = access.key(fs, target)
    val span = access.span(fs, key)
    try {
      val request = access
        .putBuilder(fs, key, length)
        .overrideConfiguration(ifNoneMatch)
        .build()
      var attempt = 1
      while (true) {
        try {
          access.client(fs).putObject(request, body)
          return true
        } catch {
          case e: S3Exception if e.statusCode == 412 => return false
          case e: S3Exception if e.statusCode == 409 && attempt < ConflictAttempts =>
            Thread.sleep(math.min(1000L, 20L << attempt))
            attempt += 1
        }
      }
      false
    } finally span.foreach(_.close())
  }

  /** [[put]] of bytes. */
  def put(target: Path, bytes: Array[Byte]): Boolean =
    put(target, RequestBody.fromBytes(bytes), bytes.length.toLong)

  /** [[put]] of a file of `fs`, opened anew for each attempt the SDK makes. */
  def putFile(staged: Path, target: Path): Boolean = {
    val length = fs.getFileStatus(staged).getLen
    var open: Option[InputStream] = None
    val provider: ContentStreamProvider = () => {
      open.foreach(in => closeQuietly(in))
      val in = fs.open(staged)
      open = Some(in)
      in
    }
    try put(target, RequestBody.fromContentProvider(provider, length, OctetStream), length)
    finally open.foreach(in => closeQuietly(in))
  }

  private def delete(target: Path): Unit = {
    val request = DeleteObjectRequest.builder().bucket(bucket).key(access.key(fs, target)).build()
    access.client(fs).deleteObject(request)
  }
}

private[txlog] object S3ConditionalPut {
  private val ConflictAttempts = 8
  private val OctetStream = "application/octet-stream"
  private val S3AClass = "org.apache.hadoop.fs.s3a.S3AFileSystem"

  // Lazy: this object is loaded where the AWS SDK v2 may be missing (see S3AAccess.of).
  private lazy val ifNoneMatch =
    AwsRequestOverrideConfiguration.builder().putHeader("If-None-Match", "*").build()

  /** The conditional PUT of `fs`, when it is S3A with an AWS SDK v2 client (hadoop-aws 3.4+). */
  def forFileSystem(fs: FileSystem): Option[S3ConditionalPut] =
    S3AAccess.of(fs).map(new S3ConditionalPut(fs, _))

  /** What the probe of a bucket found: None when the store honours `If-None-Match: *`, else why it
    * cannot be trusted with it.
    */
  private val probed = new ConcurrentHashMap[String, Option[String]]()

  /** Whether the store of `put`'s bucket honours `If-None-Match: *`, asked once per bucket and JVM:
    * a probe object under `dir` (a hidden name in `_delta_log`, which no reader lists as a log
    * file) is PUT twice with the header; the second PUT must be refused. None: it is honoured;
    * Some(reason): the store ignores the header (both PUTs succeed: an S3-compatible store that
    * would let racing writers replace each other's commits) or rejects it (an error status). A
    * failure to reach the store is thrown (nothing is concluded from it).
    */
  def probe(put: S3ConditionalPut, fs: FileSystem, dir: Path): Option[String] = {
    val id = s"${fs.getUri}|${put.bucket}"
    Option(probed.get(id)).getOrElse {
      val outcome = runProbe(put, dir)
      probed.put(id, outcome)
      outcome
    }
  }

  /** The cached probe outcome of `fs`'s bucket, if it was probed in this JVM. */
  def probedOutcome(put: S3ConditionalPut, fs: FileSystem): Option[Option[String]] =
    Option(probed.get(s"${fs.getUri}|${put.bucket}"))

  private def runProbe(put: S3ConditionalPut, dir: Path): Option[String] = {
    val target = new Path(dir, s".txlog-put-if-absent-probe-${UUID.randomUUID()}")
    def attempt(n: Int): Either[String, Boolean] =
      try Right(put.put(target, s"probe $n".getBytes(UTF_8)))
      catch {
        // 400 (InvalidRequest), 405, 501 (NotImplemented): the store does not take the header.
        case e: S3Exception if Set(400, 405, 501).contains(e.statusCode) =>
          Left(s"the store answered a conditional PUT with ${e.statusCode} (${e.getMessage})")
      }
    try {
      attempt(1) match {
        case Left(reason) => Some(reason)
        case Right(false) => Some(s"a conditional PUT of a new key ($target) was refused")
        case Right(true) =>
          attempt(2) match {
            case Left(reason) => Some(reason)
            case Right(false) => None
            case Right(true) =>
              Some(
                "the store accepted a second conditional PUT (If-None-Match: *) of one key: it " +
                  "ignores the header, so racing writers could replace each other's log files"
              )
          }
      }
    } finally {
      try put.delete(target)
      catch { case NonFatal(_) => () }
    }
  }

  private def closeQuietly(c: Closeable): Unit =
    try c.close()
    catch { case NonFatal(_) => () }

  /** S3A's methods, looked up once per class loader (hadoop-aws is the cluster's, never txlog's):
    * the bucket, the key of a path, the SDK v2 client, a PUT request built by S3A's request factory
    * (its encryption, ACL and storage class settings applied), and an audit span.
    */
  private[txlog] final class S3AAccess private (cls: Class[_]) {
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
      Option(
        cls.getMethods.find(m => m.getName == "createSpan" && m.getParameterCount == 3)
      ).flatten

    private def call(m: Method, on: AnyRef, args: AnyRef*): AnyRef =
      try m.invoke(on, args: _*)
      catch { case e: InvocationTargetException if e.getCause != null => throw e.getCause }

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

  private[txlog] object S3AAccess {
    private val byClass = new ConcurrentHashMap[Class[_], Option[S3AAccess]]()

    /** S3A's methods when `fs` is S3A with an SDK v2 client, else None. */
    def of(fs: FileSystem): Option[S3AAccess] = {
      val cls = fs.getClass
      if (!isS3A(cls)) None
      else
        byClass.computeIfAbsent(
          cls,
          c =>
            try Some(new S3AAccess(c))
            catch {
              // hadoop-aws before 3.4 (SDK v1), or no SDK v2 where txlog is loaded.
              case _: ReflectiveOperationException | _: LinkageError => None
            }
        )
    }

    private def isS3A(c: Class[_]): Boolean =
      c != null && (c.getName == S3AClass || isS3A(c.getSuperclass))
  }
}
