package txlog.log

import java.io.{BufferedReader, InputStreamReader}
import java.nio.charset.StandardCharsets.UTF_8

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

import txlog.errors.TxlogErrors
import txlog.protocol.CommitFile

/** Reads a commit's in-commit timestamp (the spec's "In-Commit Timestamps"): the first line of the
  * commit file only.
  *
  * {{{
  * val ict = InCommitTimestampReader.read(table, commit)
  * }}}
  */
private[txlog] object InCommitTimestampReader {

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
