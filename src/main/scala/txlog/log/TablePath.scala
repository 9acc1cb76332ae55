package txlog.log

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, LocalFileSystem, Path, RawLocalFileSystem}
import txlog.protocol.FileNames

/** A table's root, qualified by its file system (`/data/t` becomes `file:/data/t`), with its
  * `_delta_log` directory and the Hadoop configuration used to reach both.
  */
private[txlog] final case class TablePath(root: String, hadoopConf: Configuration) {
  @transient lazy val rootPath: Path = new Path(root)

  /** The file system of the table, configured for reading the log (see [[readOptions]]): on a local
    * disk a `RawLocalFileSystem` of its own, made on [[hadoopConf]] as `getFileSystem` would make
    * it on [[readConf]], without copying the configuration (a copy costs about a tenth of loading a
    * small table).
    */
  @transient lazy val fs: FileSystem =
    if (readOptions.isEmpty) rootPath.getFileSystem(hadoopConf)
    else {
      val raw = new RawLocalFileSystem()
      raw.setConf(hadoopConf)
      raw.initialize(rootPath.toUri, hadoopConf)
      raw
    }
  @transient lazy val logDir: Path = new Path(rootPath, "_delta_log")

  /** Hadoop settings for reading log files. On local disks, Hadoop's own `.name.crc` side files are
    * not part of the Delta protocol and go stale when tables are copied by other tools, so local
    * files are read without them (as other Delta readers do), unless `fs.file.impl` names an
    * implementation of the user's own.
    */
  def readOptions: Map[String, String] =
    if (
      rootPath.toUri.getScheme == "file" &&
      Option(hadoopConf.get("fs.file.impl")).forall(_ == classOf[LocalFileSystem].getName)
    ) {
      Map(
        "fs.file.impl" -> "org.apache.hadoop.fs.RawLocalFileSystem",
        "fs.file.impl.disable.cache" -> "true"
      )
    } else Map.empty

  /** The Hadoop configuration with [[readOptions]] applied (a copy only when there are some), for
    * tasks and readers that make their own file system; on the driver, [[fs]] is that file system.
    */
  @transient lazy val readConf: Configuration =
    if (readOptions.isEmpty) hadoopConf
    else {
      val c = new Configuration(hadoopConf)
      readOptions.foreach { case (k, v) => c.set(k, v) }
      c
    }

  /** Whether `path` is on the table's file system: relative, or of the root's scheme and authority.
    */
  def sameFileSystem(path: Path): Boolean = {
    val (p, r) = (path.toUri, rootPath.toUri)
    p.getScheme == null || (p.getScheme.equalsIgnoreCase(r.getScheme) &&
      Option(p.getAuthority).map(_.toLowerCase) == Option(r.getAuthority).map(_.toLowerCase))
  }
  def sidecarDir: Path = new Path(logDir, FileNames.SidecarDir)
}

private[txlog] object TablePath {
  def qualified(path: String, hadoopConf: Configuration): TablePath = {
    val p = new Path(path)
    val fs = p.getFileSystem(hadoopConf)
    TablePath(fs.makeQualified(p).toString.stripSuffix("/"), hadoopConf)
  }
}
