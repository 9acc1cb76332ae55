package txlog.storage

import java.io.IOException

import com.amazonaws.{AmazonClientException, Request, Response}
import com.amazonaws.handlers.{HandlerBeforeAttemptContext, RequestHandler2}
import com.amazonaws.services.s3.model.PutObjectRequest

/** [[S3Faults]] in S3A's AWS SDK v1 client (hadoop-aws 3.3, named in
  * `fs.s3a.audit.request.handlers`): the PUT faults the conditional PUT suite uses. A no-op unless
  * a fault is active.
  */
class S3FaultHandlerV1 extends RequestHandler2 {
  import S3Faults._

  private def putKey(r: Request[_]): Option[String] = r.getOriginalRequest match {
    case p: PutObjectRequest => Some(p.getKey)
    case _                   => None
  }

  private def reset(what: String) =
    new AmazonClientException(
      s"test fault: $what",
      new IOException(s"Connection reset (test fault: $what)")
    )

  // Each attempt, after the request's custom headers are merged in and before it is signed.
  override def beforeAttempt(c: HandlerBeforeAttemptContext): Unit =
    (active, putKey(c.getRequest)) match {
      case (Some(IgnoreIfNoneMatch(k)), Some(key)) if k(key) =>
        record(s"PUT $key without If-None-Match")
        c.getRequest.getHeaders.remove("If-None-Match")
      case (Some(FailPut(k)), Some(key)) if k(key) =>
        record(s"PUT $key failed")
        throw reset(s"PUT $key failed before it was sent")
      case _ => ()
    }

  override def afterResponse(r: Request[_], response: Response[_]): Unit =
    (active, putKey(r)) match {
      case (Some(LoseAck(k, times)), Some(key)) if k(key) =>
        val status = response.getHttpResponse.getStatusCode
        if (status / 100 == 2 && take(times)) {
          record(s"PUT $key $status lost")
          throw reset(s"the answer to PUT $key ($status) was lost")
        }
        record(s"PUT $key $status")
      case _ => ()
    }
}
