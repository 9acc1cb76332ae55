package txlog.replay

import org.apache.spark.sql.{Row, SparkSession}

import txlog.errors.TxlogErrors
import txlog.protocol.ActionSchemas

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
    val overlay: FileOverlay,
    typedStatsOnly: () => Boolean = () => false
) {

  /** The checkpoint's reader on the driver, for a later snapshot on the same checkpoint. */
  def reader: Option[DriverCheckpoint] = checkpoint.map(_._1)

  /** Drops the checkpoint's file actions its reader kept for a pass (see [[DriverCheckpoint.of]]'s
    * `keepFiles`), if that pass did not take them.
    */
  def releaseKept(): Unit = reader.foreach(_.releaseKept())

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

  /** As [[foreach]], with each add and remove whole ([[ActionSchemas.fileActions]]): the tail's
    * winners parsed in full from their lines (one that does not parse is MALFORMED_LOG_FILE, as the
    * planned state would fail), the checkpoint's read whole. False (nothing seen) when the
    * checkpoint's statistics are typed only (`typedStatsOnly`): the planned state turns them back
    * into JSON, which this does not.
    */
  def foreachFull(spark: SparkSession)(f: (Row, Row) => Unit): Boolean = {
    val read = checkpoint.forall { case (cp, sidecars) =>
      !typedStatsOnly() && cp.eachFullFile(sidecars, overlay)(f).isDefined
    }
    if (read) {
      val parser = new LineParser(ActionSchemas.fileActions, Tail.timeZone(spark))
      overlay.newest.valuesIterator.foreach { a =>
        val full = parser.parse(a.text).getOrElse {
          throw TxlogErrors
            .malformedLogFile(a.file, a.version, NonFileState.invalidLine(a.idx, a.text))
        }
        if (a.add != null) f(full.getAs[Row](0), null) else f(null, full.getAs[Row](1))
      }
    }
    read
  }
}
