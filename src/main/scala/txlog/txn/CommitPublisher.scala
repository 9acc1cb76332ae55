package txlog.txn

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

import txlog.errors.TxlogErrors
import txlog.log.TablePath
import txlog.protocol.FileNames
import txlog.storage.{LogStores, HiddenTempFiles}

/** Publishes one commit file `_delta_log/<version>.json` by put-if-absent: the header lines (the
  * driver's actions, commitInfo first) followed by the body's file-action lines. A body held on the
  * driver is written in one `putIfAbsent`; a staged one is streamed, part file after part file
  * through a fixed-size buffer, into one hidden file beside the target, which is then published.
  */
private[txlog] object CommitPublisher {
  private val BufferBytes = 1 << 16

  /** Whether this writer's commit became `version` (false: another writer's is there).
    *
    * When the store says the file exists, the outcome may still be this writer's: a PUT that landed
    * while the client saw an error (and whose retry was refused as the object existed) looks like a
    * lost race. The file's commitInfo is read back, and a `txnId` equal to this commit's (`txnId`,
    * a random UUID per commit) means it is this commit: committed once, not again at the next
    * version.
    */
  def publish(
      table: TablePath,
      version: Long,
      header: Seq[String],
      body: CommitBody,
      txnId: String
  ): Boolean = {
    val target = new Path(table.logDir, FileNames.commitName(version))
    write(table, target, header, body) || OwnCommit.isOwn(table, target, version, txnId)
  }

  private def write(
      table: TablePath,
      target: Path,
      header: Seq[String],
      body: CommitBody
  ): Boolean = {
    val fs = table.fs
    val store = LogStores.forPath(fs, target)
    body.lines match {
      case Some(lines) =>
        val out = new ByteArrayOutputStream()
        (header ++ lines).foreach { l => out.write(l.getBytes(UTF_8)); out.write('\n') }
        store.putIfAbsent(target, out.toByteArray)
      case None =>
        store.checkPutIfAbsent(table.logDir)
        val staged = HiddenTempFiles.tempPath(target)
        try {
          val out = fs.create(staged, false)
          try {
            header.foreach { l => out.write(l.getBytes(UTF_8)); out.write('\n') }
            val buf = new Array[Byte](BufferBytes)
            body.parts.foreach { p =>
              val in = fs.open(p)
              try org.apache.commons.io.IOUtils.copyLarge(in, out, buf)
              finally in.close()
            }
          } finally out.close()
        } catch {
          case NonFatal(e) =>
            HiddenTempFiles.deleteQuietly(fs, staged)
            throw TxlogErrors.writeFailed(target.toString, e.toString, e)
        }
        try store.publish(staged, target)
        finally HiddenTempFiles.deleteQuietly(fs, staged)
    }
  }
}
