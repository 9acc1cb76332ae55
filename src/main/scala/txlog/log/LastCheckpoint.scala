package txlog.log

import java.io.FileNotFoundException
import java.nio.charset.StandardCharsets.UTF_8

import scala.util.control.NonFatal

import org.apache.commons.io.IOUtils
import org.apache.hadoop.fs.{FileSystem, Path}
import org.slf4j.LoggerFactory
import txlog.protocol.FileNames
import txlog.storage.{LocalReads, LogObjectOpen}

/** The content of `_delta_log/_last_checkpoint` ("Last Checkpoint File Schema"). */
private[txlog] final case class LastCheckpoint(
    version: Long,
    size: Long,
    parts: Option[Int],
    sizeInBytes: Option[Long],
    numOfAddFiles: Option[Long],
    checksum: Option[String]
)

private[txlog] object LastCheckpoint {
  private val log = LoggerFactory.getLogger(getClass)

  /** Reads the hint, or None when it is absent, unparsable or fails its checksum. It is only a
    * hint: a bad one is logged and ignored, never an error.
    */
  def read(fs: FileSystem, logDir: Path): Option[LastCheckpoint] = {
    val file = new Path(logDir, FileNames.LastCheckpoint)
    // One request on S3A (its own `exists` and `open` send two HEADs before the GET).
    val open = LogObjectOpen.of(fs).getOrElse((p: Path) => fs.open(p))
    // On a local disk, an absent hint (most tables) is seen without an exception's stack trace.
    val absent = LocalReads.handles(fs) && LocalReads.file(file).exists(!_.exists)
    try {
      val json =
        if (absent) None
        else
          try {
            val in = open(file)
            try Some(IOUtils.toString(in, UTF_8))
            finally in.close()
          } catch { case _: FileNotFoundException => None }
      json.flatMap { text =>
        parse(text) match {
          case Right(lc) => Some(lc)
          case Left(why) => log.warn(s"Ignoring $file: $why"); None
        }
      }
    } catch {
      case NonFatal(e) => log.warn(s"Ignoring unreadable $file: $e"); None
    }
  }

  /** The document for `lc` with its spec "JSON checksum" (`lc.checksum` is ignored): the checksum
    * is computed over the canonical form of the other fields.
    */
  def toJson(lc: LastCheckpoint): String = {
    val node = LastCheckpointChecksum.mapper.createObjectNode()
    node.put("version", lc.version)
    node.put("size", lc.size)
    lc.parts.foreach(p => node.put("parts", p))
    lc.sizeInBytes.foreach(s => node.put("sizeInBytes", s))
    lc.numOfAddFiles.foreach(n => node.put("numOfAddFiles", n))
    node.put(
      "checksum",
      LastCheckpointChecksum.checksum(LastCheckpointChecksum.mapper.writeValueAsString(node))
    )
    LastCheckpointChecksum.mapper.writeValueAsString(node)
  }

  /** Points `_last_checkpoint` at `lc` unless it already names a newer checkpoint; replaced
    * atomically, so readers see the old or the new hint, never a partial one. True if written.
    */
  def write(fs: FileSystem, logDir: Path, lc: LastCheckpoint): Boolean = {
    if (read(fs, logDir).exists(_.version > lc.version)) false
    else {
      LogWrites.overwrite(
        fs,
        new Path(logDir, FileNames.LastCheckpoint),
        toJson(lc).getBytes(UTF_8)
      )
      true
    }
  }

  /** Parses and verifies a `_last_checkpoint` document; Left says why it cannot be used. */
  def parse(json: String): Either[String, LastCheckpoint] =
    try {
      val node = LastCheckpointChecksum.mapper.readTree(json)
      if (node == null || !node.isObject || !node.hasNonNull("version")) {
        Left("no version field")
      } else {
        def long(f: String) = Option(node.get(f)).filter(_.isNumber).map(_.asLong())
        val lc = LastCheckpoint(
          version = node.get("version").asLong(),
          size = long("size").getOrElse(-1L),
          parts = long("parts").map(_.toInt),
          sizeInBytes = long("sizeInBytes"),
          numOfAddFiles = long("numOfAddFiles"),
          checksum = Option(node.get("checksum")).filter(_.isTextual).map(_.asText())
        )
        lc.checksum match {
          case Some(c) if c != LastCheckpointChecksum.checksum(json) =>
            Left(s"checksum $c does not match")
          case _ => Right(lc)
        }
      }
    } catch {
      case NonFatal(e) => Left(s"not valid JSON: ${e.getMessage}")
    }
}
