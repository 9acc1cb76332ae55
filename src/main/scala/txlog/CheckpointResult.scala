package txlog

import txlog.util.{SummaryField, SummaryShape}

import scala.jdk.CollectionConverters._

/** What [[DeltaLog.checkpoint]] wrote.
  *
  * {{{
  * val r = log.checkpoint()
  * println(s"${r.kind} checkpoint of v${r.version}: ${r.files.mkString(", ")}")
  * }}}
  *
  * @param version
  *   the checkpointed table version
  * @param kind
  *   classic, multipart or v2
  * @param files
  *   the checkpoint's files in `_delta_log` (all parts of a multi-part one)
  * @param sidecars
  *   the sidecar files a V2 checkpoint references (empty otherwise)
  * @param numActions
  *   the number of actions in the checkpoint, sidecars included
  * @param numAddFiles
  *   live files (add actions)
  * @param numRemoveFiles
  *   unexpired tombstones (remove actions)
  * @param sizeInBytes
  *   the size of all files written, sidecars included
  * @param alreadyExisted
  *   true when the checkpoint (every part of a multi-part one) was already in `_delta_log`: it is
  *   left untouched, since a checkpoint of the same version has the same content, and `files` and
  *   `sizeInBytes` describe it
  */
final case class CheckpointResult(
    version: Long,
    kind: String,
    files: Seq[String],
    sidecars: Seq[String],
    numActions: Long,
    numAddFiles: Long,
    numRemoveFiles: Long,
    sizeInBytes: Long,
    alreadyExisted: Boolean = false
) extends Summarized {

  /** version, kind, files, sidecars, the counts, size_in_bytes and already_existed. Example:
    * `r.summaryFields.toMap("num_add_files")`.
    */
  def summaryFields: Seq[(String, Any)] = CheckpointResult.Summary.values(this)
}

/** The companion of [[CheckpointResult]]. */
object CheckpointResult {

  /** The summary's fields, defined once (Scala, the command line and Python read them). */
  private[txlog] val Summary: SummaryShape[CheckpointResult] = SummaryShape[CheckpointResult](
    "CheckpointResult",
    """|What :meth:`DeltaLog.checkpoint` wrote: the checkpoint's files in ``_delta_log`` (all
      |parts of a multi-part one), the sidecars of a V2 one, and its action counts.
      |``already_existed`` is true when the checkpoint was already there and was left untouched
      |(a checkpoint of the same version has the same content).""".stripMargin
  )(
    SummaryField.long[CheckpointResult]("version")(_.version),
    SummaryField.string[CheckpointResult]("kind")(_.kind),
    SummaryField.strings[CheckpointResult]("files")(_.files),
    SummaryField.strings[CheckpointResult]("sidecars")(_.sidecars),
    SummaryField.long[CheckpointResult]("num_actions")(_.numActions),
    SummaryField.long[CheckpointResult]("num_add_files")(_.numAddFiles),
    SummaryField.long[CheckpointResult]("num_remove_files")(_.numRemoveFiles),
    SummaryField.long[CheckpointResult]("size_in_bytes")(_.sizeInBytes),
    SummaryField.bool[CheckpointResult]("already_existed")(_.alreadyExisted)
  )
}
