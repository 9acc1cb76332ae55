package txlog.inspect

import java.nio.charset.StandardCharsets.UTF_8

import scala.util.control.NonFatal

import org.apache.commons.io.IOUtils
import org.apache.hadoop.fs.Path

import txlog.log.{LastCheckpointChecksum, LogListing}
import txlog.protocol.FileNames

/** Rules decided from the log's listing alone (no Spark job): version contiguity and
  * `_last_checkpoint`.
  */
private[txlog] object ListingRules {

  /** Every gap between the first and the last commit ("Delta Log Entries": versions are
    * contiguous); checkpoints and checksums of versions after the last commit are warned about
    * (their commit is missing).
    */
  def contiguity(listing: LogListing): Seq[Finding] = {
    val versions = listing.commits.map(_.version)
    val gaps = versions.zip(versions.drop(1)).collect {
      case (a, b) if b != a + 1 =>
        Finding.error(
          a + 1,
          null,
          Rules.VersionContiguity,
          s"Commits ${a + 1} to ${b - 1} are missing: commit $a is followed by commit $b."
        )
    }
    val last = versions.lastOption.getOrElse(-1L)
    val beyond = (listing.checkpoints.map(c => c.version -> c.files.head.file.path) ++
      listing.checksums.values.map(c => c.version -> c.file.path)).collect {
      case (v, f) if v > last =>
        Finding.warning(
          v,
          f,
          Rules.VersionContiguity,
          s"There is no commit $v (the last commit is $last), yet this file of version $v exists."
        )
    }
    gaps ++ beyond.sortBy(_.version)
  }

  /** `_last_checkpoint`: valid JSON with a version, its checksum (when present) right, and the
    * checkpoint it names present and complete.
    */
  def lastCheckpoint(listing: LogListing): Seq[Finding] = {
    val table = listing.table
    val file = new Path(table.logDir, FileNames.LastCheckpoint)
    val text =
      try {
        if (!table.fs.exists(file)) return Nil
        val in = table.fs.open(file)
        try IOUtils.toString(in, UTF_8)
        finally in.close()
      } catch { case NonFatal(e) => return Seq(malformed(file, s"It cannot be read: $e")) }
    val node =
      try Option(LastCheckpointChecksum.mapper.readTree(text)).filter(_.isObject)
      catch { case NonFatal(_) => None }
    node match {
      case None => Seq(malformed(file, "It is not a JSON object."))
      case Some(n) if !n.hasNonNull("version") || !n.get("version").canConvertToLong =>
        Seq(malformed(file, "It has no numeric version field."))
      case Some(n) =>
        val version = n.get("version").asLong()
        val parts = Option(n.get("parts")).filter(_.isNumber).map(_.asInt())
        val checksum = Option(n.get("checksum")).filter(_.isTextual).map(_.asText()).collect {
          case c if c != LastCheckpointChecksum.checksum(text) =>
            Finding.error(
              version,
              file.toString,
              Rules.LastCheckpointChecksum,
              s"Its checksum $c does not match its content " +
                s"(${LastCheckpointChecksum.checksum(text)})."
            )
        }
        checksum.toSeq ++ pointer(listing, file.toString, version, parts)
    }
  }

  private def pointer(
      listing: LogListing,
      file: String,
      version: Long,
      parts: Option[Int]
  ): Seq[Finding] = {
    val named = listing.checkpoints.filter(c => c.version == version && c.parts == parts)
    val newest = listing.checkpoints.lastOption.map(_.version)
    if (named.isEmpty) {
      val what = parts.fold("")(p => s" in $p parts")
      Seq(
        Finding.error(
          version,
          file,
          Rules.LastCheckpointPointer,
          s"It names a checkpoint of version $version$what, which does not exist or is " +
            s"incomplete (complete checkpoints: ${listing.checkpoints
                .map(_.version)
                .distinct
                .mkString(", ")})."
        )
      )
    } else if (newest.exists(_ > version)) {
      Seq(
        Finding.warning(
          version,
          file,
          Rules.LastCheckpointStale,
          s"It names checkpoint $version, but checkpoint ${newest.get} is newer."
        )
      )
    } else Nil
  }

  private def malformed(file: Path, detail: String): Finding =
    Finding(None, Some(file.toString), Rules.LastCheckpointMalformed, Finding.Error, detail)
}
