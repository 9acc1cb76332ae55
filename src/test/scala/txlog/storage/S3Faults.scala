package txlog.storage

import java.io.{FilterInputStream, IOException, InputStream}
import java.util.Optional
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicInteger

import scala.jdk.CollectionConverters._

import software.amazon.awssdk.core.exception.SdkClientException
import software.amazon.awssdk.core.SdkRequest
import software.amazon.awssdk.core.interceptor.{Context, ExecutionAttributes, ExecutionInterceptor}
import software.amazon.awssdk.services.s3.model.{GetObjectRequest, PutObjectRequest}

/** Faults of S3 requests for tests, injected into S3A's AWS SDK client by [[S3FaultInterceptor]]
  * (named in `fs.s3a.audit.execution.interceptors`), so that the requests are real ones to the
  * local S3 server and S3A's own streams, retries and error translation run as in production.
  *
  * {{{
  * S3Faults.during(S3Faults.LoseAck(_.endsWith("00000000000000000001.json"))) { txn.commit() }
  * }}}
  */
object S3Faults {

  /** A fault of the requests on keys `key` accepts. */
  sealed trait Fault { def key: String => Boolean }

  /** Every PUT of the key fails before it is sent: the client sees an I/O error each attempt. */
  final case class FailPut(key: String => Boolean) extends Fault

  /** The first `times` PUTs of the key that the server stores answer the client with an I/O error
    * instead (the connection reset after the object was stored); the SDK may retry.
    */
  final case class LoseAck(key: String => Boolean, times: Int = 1) extends Fault

  /** Reads of the key break at the object's middle byte: from the first GET of its first byte on (a
    * whole-file read, as a copy makes; a parquet reader's ranges start after the magic bytes),
    * including the GETs the client reopens the stream with; or every GET when `anyRange`.
    */
  final case class BreakRead(key: String => Boolean, anyRange: Boolean = false) extends Fault

  /** PUTs of the key go out without the `If-None-Match` header their request asked for: the store
    * stands for an S3-compatible one that ignores it (and so overwrites).
    */
  final case class IgnoreIfNoneMatch(key: String => Boolean) extends Fault

  @volatile private var current: Option[Fault] = None
  private val used = new AtomicInteger()
  private val seen = new ConcurrentLinkedQueue[String]()
  private val breaking = java.util.concurrent.ConcurrentHashMap.newKeySet[String]()

  /** Runs `f` with `fault` active; the requests it hit are in [[hits]] afterwards. */
  def during[T](fault: Fault)(f: => T): T = {
    used.set(0)
    seen.clear()
    breaking.clear()
    current = Some(fault)
    try f
    finally current = None
  }

  /** What the last fault hit: "METHOD key status" per request it acted on, in order. */
  def hits: Seq[String] = seen.asScala.toSeq

  private[storage] def active: Option[Fault] = current
  private[storage] def record(what: String): Unit = seen.add(what)
  private[storage] def take(limit: Int): Boolean = used.incrementAndGet() <= limit

  /** Whether reads of `key` break: from the first whole-file read on, or always when `any`. */
  private[storage] def breaks(key: String, fromStart: Boolean, any: Boolean): Boolean =
    if (any || fromStart) { breaking.add(key); true }
    else breaking.contains(key)
}

/** The SDK side of [[S3Faults]]: a no-op unless a fault is active. */
class S3FaultInterceptor extends ExecutionInterceptor {
  import S3Faults._

  private def putKey(r: AnyRef): Option[String] = r match {
    case p: PutObjectRequest => Some(p.key)
    case _                   => None
  }

  private def reset(what: String) = SdkClientException
    .builder()
    .message(s"test fault: $what")
    .cause(new IOException(s"Connection reset (test fault: $what)"))
    .build()

  override def modifyRequest(c: Context.ModifyRequest, a: ExecutionAttributes): SdkRequest =
    (active, c.request) match {
      case (Some(IgnoreIfNoneMatch(k)), p: PutObjectRequest) if k(p.key) =>
        record(s"PUT ${p.key} without If-None-Match")
        val o = p.overrideConfiguration
        if (!o.isPresent) p
        else {
          val kept = o.get.headers.asScala.filter { case (h, _) =>
            !h.equalsIgnoreCase("If-None-Match")
          }
          p.toBuilder.overrideConfiguration(o.get.toBuilder.headers(kept.asJava).build()).build()
        }
      case _ => c.request
    }

  override def beforeTransmission(c: Context.BeforeTransmission, a: ExecutionAttributes): Unit =
    (active, putKey(c.request)) match {
      case (Some(FailPut(k)), Some(key)) if k(key) =>
        record(s"PUT $key failed")
        throw reset(s"PUT $key failed before it was sent")
      case _ => ()
    }

  override def afterTransmission(c: Context.AfterTransmission, a: ExecutionAttributes): Unit =
    (active, putKey(c.request)) match {
      case (Some(LoseAck(k, times)), Some(key)) if k(key) =>
        val status = c.httpResponse.statusCode
        if (status / 100 == 2 && take(times)) {
          record(s"PUT $key $status lost")
          throw reset(s"the answer to PUT $key ($status) was lost")
        }
        record(s"PUT $key $status")
      case _ => ()
    }

  override def modifyHttpResponseContent(
      c: Context.ModifyHttpResponse,
      a: ExecutionAttributes
  ): Optional[InputStream] = {
    val body = c.responseBody
    (active, c.request) match {
      case (Some(BreakRead(k, any)), g: GetObjectRequest)
          if k(g.key) && body.isPresent && breaks(g.key, fromStart(g), any) =>
        // Content-Range: bytes <first>-<last>/<total>
        val (first, total) = c.httpResponse
          .firstMatchingHeader("Content-Range")
          .map[(Long, Long)] { r =>
            val Array(span, size) = r.stripPrefix("bytes ").split('/')
            (span.split('-')(0).toLong, size.toLong)
          }
          .orElse((0L, c.httpResponse.firstMatchingHeader("Content-Length").get.toLong))
        val limit = math.max(0L, total / 2 - first)
        record(s"GET ${g.key} from $first broken at ${total / 2} of $total")
        Optional.of(new Breaking(body.get, limit, g.key))
      case _ => body
    }
  }

  private def fromStart(g: GetObjectRequest): Boolean =
    Option(g.range).forall(_.startsWith("bytes=0-"))

  /** Gives `limit` bytes, then fails as a reset connection does. */
  private final class Breaking(in: InputStream, limit: Long, key: String)
      extends FilterInputStream(in) {
    private var left = limit
    private def broken = new IOException(s"Connection reset (test fault: GET $key broke)")
    override def read(): Int =
      if (left <= 0) throw broken else { left -= 1; super.read() }
    override def read(b: Array[Byte], off: Int, len: Int): Int =
      if (left <= 0) throw broken
      else {
        val n = super.read(b, off, math.min(len.toLong, left).toInt)
        if (n > 0) left -= n
        n
      }
  }
}
