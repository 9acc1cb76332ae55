package txlog.repair

import java.time.{ZoneOffset, ZonedDateTime}
import java.time.format.DateTimeFormatter

import org.apache.hadoop.fs.Path

import txlog.errors.TxlogErrors
import txlog.log.TablePath

/** Where repair moves the log files it replaces: `<table>/_txlog_set_aside/<UTC time>/`, a hidden
  * directory outside `_delta_log` (readers never list it, and vacuum skips names starting with
  * `_`), so nothing is deleted and the files can be inspected or moved back by hand.
  */
private[txlog] final class SetAside(table: TablePath, now: ZonedDateTime) {

  /** The directory this repair moves files into (created on the first move). */
  val dir: Path = new Path(
    new Path(table.rootPath, SetAside.DirName),
    now.withZoneSameInstant(ZoneOffset.UTC).format(SetAside.Stamp)
  )

  /** Moves `file` into [[dir]] and returns where it went. LOG_WRITE_FAILED when the file is still
    * in the log afterwards (a rename that failed or, on an object store, copied without deleting).
    */
  def move(file: Path): Path = {
    val fs = table.fs
    val target = new Path(dir, file.getName)
    val moved =
      try { fs.mkdirs(dir); fs.rename(file, target) }
      catch {
        case e: java.io.IOException =>
          throw TxlogErrors.writeFailed(target.toString, s"Moving $file aside failed: $e", e)
      }
    if (!moved || fs.exists(file)) {
      throw TxlogErrors.writeFailed(
        target.toString,
        s"$file could not be moved aside (the file system's rename returned $moved); " +
          "nothing was rewritten."
      )
    }
    target
  }

  /** Moves `target` (returned by [[move]]) back to `file`, where it was: what a repair does when
    * writing the replacement failed, so that the log is left as it was.
    */
  def moveBack(target: Path, file: Path): Unit = {
    val fs = table.fs
    if (!fs.rename(target, file) || !fs.exists(file)) {
      throw TxlogErrors.writeFailed(
        file.toString,
        s"$target could not be moved back after writing its replacement failed; move it back " +
          "by hand."
      )
    }
  }
}

private[txlog] object SetAside {
  val DirName = "_txlog_set_aside"
  private val Stamp = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'")
}
