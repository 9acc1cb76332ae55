package txlog.storage

import java.io.InputStream

import org.apache.hadoop.fs.{FileSystem, Path}

/** How a whole log object (a commit, `_last_checkpoint`) is opened on `fs` most cheaply, where that
  * is not `fs.open`: one GET on S3A ([[S3Get]], without S3A's HEAD), a plain file stream on
  * Hadoop's own local file system ([[LocalReads]], without its stat). None for any other file
  * system: then `fs.open`.
  *
  * {{{
  * val open = LogObjectOpen.of(fs).getOrElse((p: Path) => fs.open(p))
  * }}}
  */
private[txlog] object LogObjectOpen {

  /** The cheaper opener of `fs`'s log objects, if it has one. */
  def of(fs: FileSystem): Option[Path => InputStream] = S3Get.of(fs).orElse(LocalReads.of(fs))
}
