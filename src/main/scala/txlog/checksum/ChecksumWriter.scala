package txlog.checksum

import org.apache.hadoop.fs.Path

import txlog.Snapshot
import txlog.errors.TxlogErrors
import txlog.log.LogWrites
import txlog.protocol.FileNames
import txlog.protocol.WriterGate

/** Writes the version checksum file of a snapshot. The spec forbids overwriting one, so the file is
  * published with put-if-absent; when it already exists (whoever wrote it, it is left untouched) it
  * is validated against the replay instead: a valid one is the file asked for, and its path is
  * returned, as `checkpoint` returns an existing checkpoint's (so writing the latest version's
  * checksum is idempotent, also on tables whose writer wrote one with every commit); one that
  * disagrees is LOG_FILE_EXISTS naming the first field that differs.
  */
private[txlog] object ChecksumWriter {

  /** Writes `n.crc` for `snapshot` and returns its qualified path. `table.fs` writes no Hadoop
    * `.name.crc` side files on local disks.
    */
  def write(snapshot: Snapshot): String = {
    val table = snapshot.segment.table
    WriterGate.check(table.root, snapshot.version, snapshot.protocol, "write a version checksum")
    val target = new Path(table.logDir, FileNames.checksumName(snapshot.version))
    if (table.fs.exists(target)) existing(snapshot, target)
    else {
      val bytes = ChecksumJson.toBytes(ChecksumComputer.compute(snapshot))
      if (LogWrites.putIfAbsent(table.fs, target, bytes)) target.toString
      else existing(snapshot, target) // another writer's, published first
    }
  }

  /** `target`'s path when the checksum file there agrees with `snapshot`; else LOG_FILE_EXISTS. */
  private def existing(snapshot: Snapshot, target: Path): String = {
    val mismatch =
      try
        ChecksumValidator.validate(snapshot).mismatches.headOption.map { m =>
          s"its ${m.field} is ${m.expected} where the log's replay gives ${m.actual}"
        }
      catch {
        case e: txlog.TxlogException if e.errorClass == txlog.ErrorClasses.MalformedLogFile =>
          Some(s"it cannot be read as a checksum (${e.cause})")
      }
    mismatch.fold(target.toString) { why =>
      throw TxlogErrors.checksumFileDiffers(target.toString, why)
    }
  }
}
