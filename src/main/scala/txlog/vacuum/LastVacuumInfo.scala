package txlog.vacuum

import java.nio.charset.StandardCharsets.UTF_8

import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.hadoop.fs.Path

import txlog.log.{LogWrites, TablePath}

/** `_delta_log/_last_vacuum_info`: delta-spark's record (not part of the protocol) of the newest
  * commit a vacuum covered, `{"latestCommitVersionOutsideOfRetentionWindow": N}`. A lite vacuum
  * reads the remove actions of the commits after it only. A missing or unreadable file is no
  * record, as delta-spark treats it; writing it is best effort.
  */
private[txlog] object LastVacuumInfo {
  val FileName = "_last_vacuum_info"
  private val Field = "latestCommitVersionOutsideOfRetentionWindow"
  private val mapper = new ObjectMapper()

  def path(table: TablePath): Path = new Path(table.logDir, FileName)

  /** The recorded commit, if any. */
  def read(table: TablePath): Option[Long] =
    try {
      val in = table.fs.open(path(table))
      val node =
        try mapper.readTree(in)
        finally in.close()
      Option(node).flatMap(n => Option(n.get(Field))).filter(_.canConvertToLong).map(_.asLong)
    } catch { case NonFatal(_) => None }

  /** Records `version`; a failure is returned as a problem, never raised (the vacuum stands). */
  def write(table: TablePath, version: Long): Option[String] =
    try {
      val json = mapper.writeValueAsString(java.util.Map.of(Field, Long.box(version)))
      LogWrites.overwrite(table.fs, path(table), json.getBytes(UTF_8))
      None
    } catch {
      case NonFatal(e) => Some(s"could not write ${path(table)}: ${e.getClass.getSimpleName}")
    }
}
