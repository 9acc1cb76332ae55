package txlog.log

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}

/**
 * A table's root, qualified by its file system (`/data/t` becomes `file:/data/t`), with its
 * `_delta_log` directory and the Hadoop configuration used to reach both.
 */
private[txlog] final case class TablePath(root: String, hadoopConf: Configuration) {
  @transient lazy val rootPath: Path = new Path(root)
  @transient lazy val fs: FileSystem = rootPath.getFileSystem(hadoopConf)
  def logDir: Path = new Path(rootPath, "_delta_log")
  def sidecarDir: Path = new Path(logDir, FileNames.SidecarDir)
}

private[txlog] object TablePath {
  def qualified(path: String, hadoopConf: Configuration): TablePath = {
    val p = new Path(path)
    val fs = p.getFileSystem(hadoopConf)
    TablePath(fs.makeQualified(p).toString.stripSuffix("/"), hadoopConf)
  }
}
