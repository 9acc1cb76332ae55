package txlog.storage

import java.net.URI
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}

/** One store under test: a scheme on a fresh local directory and the settings it needs. */
final case class StoreCase(scheme: String, settings: Map[String, String] = Map.empty) {
  val local: java.nio.file.Path = txlog.testing.TempDirs.create(s"logstore-$scheme")
  val conf: Configuration = {
    val c = ObjectStoreLikeFileSystem.register(RenameOnlyFileSystem.register(new Configuration()))
    c.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem")
    c.set("fs.file.impl.disable.cache", "true")
    c.set("spark.txlog.storage.rnm.kind", "rename")
    c.set("spark.txlog.storage.atomicRenameSchemes", "rnm") // it stands for HDFS
    settings.foreach { case (k, v) => c.set(k, v) }
    c
  }
  val dir: Path = new Path(new URI(scheme, null, local.toString, null))
  val fs: FileSystem = dir.getFileSystem(conf)
  def path(name: String): Path = new Path(dir, name)
  def localFile(name: String): java.nio.file.Path = local.resolve(name)
  def read(name: String): String = new String(Files.readAllBytes(localFile(name)), UTF_8)
  def names: Seq[String] =
    Files.list(local).toArray.map(p => Paths.get(p.toString).getFileName.toString).toSeq.sorted
  override def toString: String = s"$scheme: ${settings.mkString(", ")}"
}

object StoreCase {
  val singleWriter: Map[String, String] = Map("spark.txlog.storage.singleWriter" -> "true")

  /** Local disk, HDFS-like rename, object store with conditional create, and one without it in
    * single-writer mode.
    */
  def all(): Seq[StoreCase] =
    Seq(StoreCase("file"), StoreCase("rnm"), StoreCase("objc"), StoreCase("objn", singleWriter))
}
