package txlog.storage

import java.io.IOException
import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.storage.S3PutClient.{Bytes, Created, Refused, Staged}

/** Put-if-absent on S3 where the Hadoop file system has no conditional create of its own (S3A
  * before hadoop-aws 3.4.2: Spark 3.5 and 4.0, EMR 7 and 8, Databricks 16.4 and 17.3; EMRFS): one
  * PUT with `If-None-Match: *` (S3 answers 412 when the key exists), sent through S3A's own AWS SDK
  * client, v2 ([[S3ASdkV2Client]]) or v1 ([[S3ASdkV1Client]]), whichever the cluster's S3A is built
  * on, or, for a file system that is not S3A, a client of txlog's own ([[S3OwnSdkV1Client]]).
  * Before its first write to a bucket, a JVM probes that the store honours the header
  * ([[S3ConditionalPut.probe]]).
  */
private[txlog] final class S3ConditionalPut private (fs: FileSystem, client: S3PutClient) {
  import S3ConditionalPut._

  /** The bucket this client writes to. */
  def bucket: String = client.bucket

  /** What sends the PUTs: "S3A's AWS SDK v2 client". */
  def via: String = client.via

  /** PUTs `body` to `target` unless the key exists: true when this PUT created it, false when the
    * store refused it (412). A PUT the store answers 409 (another conditional PUT of the key in
    * flight) is sent again. A store that does not take the header (400, 405, 501) is [[NotTaken]];
    * any other failure is thrown as it came.
    */
  def put(target: Path, body: S3PutClient.Body): Boolean = {
    val key = client.key(target)
    var attempt = 1
    while (true) {
      client.putOnce(key, body) match {
        case Created         => return true
        case Refused(412, _) => return false
        case Refused(409, _) if attempt < ConflictAttempts =>
          Thread.sleep(math.min(1000L, 20L << attempt))
          attempt += 1
        case Refused(status, message) => throw new NotTaken(key, status, message)
      }
    }
    false
  }

  /** [[put]] of bytes. */
  def put(target: Path, bytes: Array[Byte]): Boolean = put(target, Bytes(bytes))

  /** [[put]] of a file of `fs`, opened anew for each attempt. */
  def putFile(staged: Path, target: Path): Boolean =
    put(target, Staged(fs, staged, fs.getFileStatus(staged).getLen))

  private def delete(target: Path): Unit = client.delete(client.key(target))
}

private[txlog] object S3ConditionalPut {
  private val ConflictAttempts = 8

  /** The store answered a conditional PUT of `key` with an error status other than 412. */
  final class NotTaken(key: String, val status: Int, message: String)
      extends IOException(s"the store answered a conditional PUT of $key with $status ($message)")

  /** The conditional PUT of `fs`: through S3A's AWS SDK v2 client (hadoop-aws 3.4+) or v1 client
    * (hadoop-aws 3.3.1+), else, for an S3 file system that is not S3A (EMRFS, Databricks' shaded
    * S3A), through a client of txlog's own ([[S3OwnSdkV1Client]]); each tried only where its SDK
    * can be loaded. None: not an S3 file system, or no SDK. Left: the client could not be made
    * (why).
    */
  def forFileSystem(fs: FileSystem): Option[Either[String, S3ConditionalPut]] = {
    def attempt(client: => Option[S3PutClient]): Option[Either[String, S3PutClient]] =
      try client.map(Right(_))
      catch {
        case _: LinkageError => None
        case NonFatal(e) =>
          Some(Left(s"no AWS SDK client could be made for ${fs.getUri} ($e)"))
      }
    attempt(S3ASdkV2Client.of(fs))
      .orElse(attempt(S3ASdkV1Client.of(fs)))
      .orElse(attempt(S3OwnSdkV1Client.of(fs)))
      .map(_.map(new S3ConditionalPut(fs, _)))
  }

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
        case e: NotTaken if Set(400, 405, 501).contains(e.status) => Left(e.getMessage)
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
}
