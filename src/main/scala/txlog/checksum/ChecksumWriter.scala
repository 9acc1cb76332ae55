package txlog.checksum

import org.apache.hadoop.fs.Path

import txlog.{Snapshot, TxlogErrors}
import txlog.log.LogWrites
import txlog.protocol.FileNames
import txlog.protocol.WriterGate

/** Writes the version checksum file of a snapshot. The spec forbids overwriting one, so the file is
  * published with put-if-absent and LOG_FILE_EXISTS is raised when it already exists (whoever wrote
  * it, it is left untouched).
  */
private[txlog] object ChecksumWriter {

  /** Writes `n.crc` for `snapshot` and returns its qualified path. `table.fs` writes no Hadoop
    * `.name.crc` side files on local disks.
    */
  def write(snapshot: Snapshot): String = {
    val table = snapshot.segment.table
    WriterGate.check(table.root, snapshot.version, snapshot.protocol, "write a version checksum")
    val target = new Path(table.logDir, FileNames.checksumName(snapshot.version))
    if (table.fs.exists(target)) throw TxlogErrors.logFileExists(target.toString)
    val bytes = ChecksumJson.toBytes(ChecksumComputer.compute(snapshot))
    if (!LogWrites.putIfAbsent(table.fs, target, bytes)) {
      throw TxlogErrors.logFileExists(target.toString)
    }
    target.toString
  }
}
