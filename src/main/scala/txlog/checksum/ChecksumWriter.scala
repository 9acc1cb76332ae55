package txlog.checksum

import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.{Snapshot, TxlogErrors}
import txlog.log.{FileNames, LogWrites, TablePath}
import txlog.table.WriterGate

/**
 * Writes the version checksum file of a snapshot. The spec forbids overwriting one, so the
 * file is published with put-if-absent and LOG_FILE_EXISTS is raised when it already exists
 * (whoever wrote it, it is left untouched).
 */
private[txlog] object ChecksumWriter {

  /** Writes `n.crc` for `snapshot` and returns its qualified path. */
  def write(snapshot: Snapshot): String = {
    val table = snapshot.segment.table
    WriterGate.check(table.root, snapshot.version, snapshot.protocol,
      "write a version checksum")
    val target = new Path(table.logDir, FileNames.checksumName(snapshot.version))
    if (table.fs.exists(target)) throw TxlogErrors.logFileExists(target.toString)
    val bytes = ChecksumJson.toBytes(ChecksumComputer.compute(snapshot))
    withWriteFs(table) { fs =>
      if (!LogWrites.putIfAbsent(fs, target, bytes)) {
        throw TxlogErrors.logFileExists(target.toString)
      }
    }
    target.toString
  }

  /**
   * The file system to publish with. Not `table.fs`: that is a raw local file system on local
   * disks, which LogWrites cannot ask for its scheme. On local disks a private instance that
   * writes no Hadoop `.name.crc` side files (they would be left behind by the hard-link
   * publish); elsewhere the shared instance.
   */
  private def withWriteFs[T](table: TablePath)(body: FileSystem => T): T =
    if (table.rootPath.toUri.getScheme == "file") {
      val fs = FileSystem.newInstance(table.rootPath.toUri, table.hadoopConf)
      try {
        fs.setWriteChecksum(false)
        body(fs)
      } finally fs.close()
    } else body(table.rootPath.getFileSystem(table.hadoopConf))
}
