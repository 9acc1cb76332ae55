package txlog.protocol

import java.io.{BufferedReader, InputStreamReader}
import java.nio.charset.StandardCharsets.UTF_8

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

import txlog.{Metadata, Protocol, TxlogErrors}
import txlog.log.{LastCheckpointChecksum, TablePath}

/** The spec's "In-Commit Timestamps": enablement and reading a commit's inCommitTimestamp. */
private[txlog] object InCommitTimestamps {

  /** The writer feature's name, as the spec spells it. */
  val Feature = "inCommitTimestamp"
  val EnabledKey = "delta.enableInCommitTimestamps"
  val VersionKey = "delta.inCommitTimestampEnablementVersion"
  val TimestampKey = "delta.inCommitTimestampEnablementTimestamp"

  /** Whether a snapshot with this protocol and metadata has in-commit timestamps enabled. */
  def enabled(p: Protocol, m: Metadata): Boolean =
    p.hasWriterFeature(Feature) &&
      m.configuration.get(EnabledKey).exists(_.equalsIgnoreCase("true"))

  /** (version, timestamp) at which in-commit timestamps were enabled, when set. */
  def enablement(m: Metadata): Option[(Long, Long)] =
    for {
      v <- m.configuration.get(VersionKey)
      t <- m.configuration.get(TimestampKey)
    } yield (v.toLong, t.toLong)

  /** The inCommitTimestamp of a commit: its first action must be a commitInfo that has it. */
  def read(table: TablePath, commit: CommitFile): Long = {
    val path = new Path(commit.file.path)
    val first =
      try {
        val in = new BufferedReader(
          new InputStreamReader(table.fs.open(path), UTF_8)
        )
        try Option(in.readLine()).getOrElse("")
        finally in.close()
      } catch {
        case NonFatal(e) =>
          throw TxlogErrors.malformedLogFile(
            commit.file.path,
            commit.version,
            s"It cannot be read: $e",
            e
          )
      }
    val ict =
      try {
        Option(LastCheckpointChecksum.mapper.readTree(first))
          .flatMap(n => Option(n.get("commitInfo")))
          .flatMap(ci => Option(ci.get("inCommitTimestamp")))
          .filter(_.isNumber)
          .map(_.asLong())
      } catch { case NonFatal(_) => None }
    ict.getOrElse(
      throw TxlogErrors.malformedLogFile(
        commit.file.path,
        commit.version,
        "In-commit timestamps are enabled but its first action is not a commitInfo with an " +
          "inCommitTimestamp."
      )
    )
  }
}
