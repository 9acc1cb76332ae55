package txlog.replay

import org.apache.spark.sql.Row

/** A small snapshot's reconciled file actions, read on the driver without a Spark job: those of its
  * checkpoint (sidecars included) that its tail does not replace, streamed from the checkpoint's
  * files each time, then the tail's winners, which the driver already holds. Each comes as its lean
  * add or remove ([[txlog.protocol.ActionSchemas.leanFileActions]]), the other null. A snapshot has
  * one when its tail was reconciled on the driver and its checkpoint, if any, was read there.
  *
  * {{{
  * actions.foreach((add, remove) => if (add != null) live += 1)
  * }}}
  */
private[txlog] final class DriverFileActions(
    checkpoint: Option[(DriverCheckpoint, Seq[String])],
    overlay: FileOverlay
) {

  /** Calls `f` with every action; false when the checkpoint cannot be read here after all (`f` may
    * have seen some actions then: the caller drops what it gathered and plans a job instead).
    */
  def foreach(f: (Row, Row) => Unit): Boolean = {
    val read = checkpoint.forall { case (cp, sidecars) =>
      cp.eachFile(sidecars, overlay)(f).isDefined
    }
    if (read) overlay.newest.valuesIterator.foreach(a => f(a.add, a.remove))
    read
  }
}
