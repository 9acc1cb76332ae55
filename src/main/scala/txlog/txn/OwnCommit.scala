package txlog.txn

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8

import scala.util.Try
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.hadoop.fs.Path

import txlog.errors.TxlogErrors
import txlog.log.TablePath

/** Whether the commit file at a version is a given transaction's: txlog writes commitInfo, with the
  * transaction's random `txnId`, as the first line, so a file whose first line carries another
  * txnId (or none) is another writer's.
  */
private[txn] object OwnCommit {
  private val mapper = new ObjectMapper()

  /** The most read of a first line: a commitInfo is far smaller. */
  val MaxBytes: Int = 8 << 20

  /** True when `target` (commit `version`) starts with a commitInfo of txnId `txnId`. A file that
    * cannot be read back is COMMIT_OUTCOME_UNKNOWN: neither committed nor free to retry.
    */
  def isOwn(table: TablePath, target: Path, version: Long, txnId: String): Boolean = {
    val first =
      try firstLine(table, target)
      catch {
        case NonFatal(e) =>
          throw TxlogErrors.commitOutcomeUnknown(target.toString, version, txnId, e)
      }
    Try(mapper.readTree(first)).toOption
      .flatMap(n => Option(n).flatMap(x => Option(x.get("commitInfo"))))
      .flatMap(ci => Option(ci.get("txnId")))
      .exists(_.asText() == txnId)
  }

  /** The bytes of `target` up to its first newline (at most [[MaxBytes]]). */
  private def firstLine(table: TablePath, target: Path): String = {
    val in = table.fs.open(target)
    try {
      val out = new ByteArrayOutputStream()
      var b = in.read()
      while (b >= 0 && b != '\n' && out.size() < MaxBytes) {
        out.write(b)
        b = in.read()
      }
      new String(out.toByteArray, UTF_8)
    } finally in.close()
  }
}
