package txlog.oracle

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}
import java.security.MessageDigest

import scala.jdk.CollectionConverters._

/** What the fixtures hold, as SHA-256 digests that depend on file names and contents only (never on
  * modification times, which differ in every copy of the fixtures).
  *
  * A table's digest covers every regular file below its folder (nested tables included), each as
  * `<path relative to the table, '/'-separated>\n<sha-256 of the content, hex>\n`, in path order.
  * The digest of a set of tables covers `<table>\t<digest>\n` lines in table order.
  * tests/oracle_recording.py computes the same digests in Python.
  */
object FixtureDigest {
  private def hex(bytes: Array[Byte]): String = bytes.map(b => f"${b & 0xff}%02x").mkString

  private def sha256(bytes: Array[Byte]): String =
    hex(MessageDigest.getInstance("SHA-256").digest(bytes))

  /** The digest of the table in `dir`. */
  def ofTable(dir: Path): String = {
    val walk = Files.walk(dir)
    val files =
      try walk.iterator().asScala.filter(Files.isRegularFile(_)).toVector
      finally walk.close()
    val lines = files
      .map(f => dir.relativize(f).iterator().asScala.mkString("/") -> f)
      .sortBy(_._1)
      .map { case (rel, f) => s"$rel\n${sha256(Files.readAllBytes(f))}\n" }
    sha256(lines.mkString.getBytes(UTF_8))
  }

  /** The digest of each of `tables` (relative names) under `root`. */
  def ofTables(root: Path, tables: Seq[String]): Map[String, String] =
    tables.map(t => t -> ofTable(root.resolve(t))).toMap

  /** One digest for the tables and their digests. */
  def combined(tables: Map[String, String]): String =
    sha256(tables.toSeq.sortBy(_._1).map { case (t, d) => s"$t\t$d\n" }.mkString.getBytes(UTF_8))
}
