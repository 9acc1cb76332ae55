package txlog.vacuum

import txlog.Transaction
import txlog.table.TableContext

/** The empty commits that record a vacuum in the history, as delta-spark writes them: `VACUUM
  * START` before anything is deleted (retention parameters; numFilesToDelete and
  * sizeOfDataToDelete), `VACUUM END` after (status COMPLETED with numDeletedFiles and
  * numVacuumedDirectories, or FAILED). Numbers and booleans are written as text. Each is a
  * transaction of its own on the latest version.
  */
private[txlog] object VacuumCommits {
  val Start = "VACUUM START"
  val End = "VACUUM END"

  def start(
      ctx: TableContext,
      retentionCheckEnabled: Boolean,
      specifiedMillis: Option[Long],
      defaultMillis: Long,
      numFiles: Long,
      sizeInBytes: Long
  ): Long =
    Transaction
      .start(ctx)
      .commit(
        Start,
        Map(
          "retentionCheckEnabled" -> retentionCheckEnabled.toString,
          "defaultRetentionMillis" -> defaultMillis.toString
        ) ++ specifiedMillis.map(m => "specifiedRetentionMillis" -> m.toString),
        Map("numFilesToDelete" -> numFiles.toString, "sizeOfDataToDelete" -> sizeInBytes.toString)
      )
      .version

  /** `done` is (files deleted, directories) when the deletes completed, None when they failed. */
  def end(ctx: TableContext, done: Option[(Long, Long)]): Long =
    Transaction
      .start(ctx)
      .commit(
        End,
        Map("status" -> (if (done.isDefined) "COMPLETED" else "FAILED")),
        done.fold(Map.empty[String, String]) { case (files, dirs) =>
          Map("numDeletedFiles" -> files.toString, "numVacuumedDirectories" -> dirs.toString)
        }
      )
      .version
}
