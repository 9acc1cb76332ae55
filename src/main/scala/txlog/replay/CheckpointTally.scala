package txlog.replay

import org.apache.spark.sql.Row

/* The running pass [[DriverCheckpoint]] makes over a checkpoint's lean file actions: which of them
 * a tail's overlay replaces, their totals, and (for a vacuum) the ones kept for a later pass. */

/** Whether an add or remove (path first, its deletion vector at `dv`) has a key `overlay` touches
  * (a later action replaced it).
  */
private[replay] final class ReplacedByOverlay(root: String, overlay: FileOverlay, dv: Int = 2)
    extends (Row => Boolean) {
  private val touched = overlay.newest
  def apply(a: Row): Boolean = touched.nonEmpty && touched.contains(
    (FileKeys.pathKeyValue(root, a.getString(0)), FileKeys.dvIdValue(a.getAs[Row](dv)))
  )
}

/** Running totals of lean file actions whose keys `overlay` does not touch, kept by `keeper`. */
private[replay] final class CheckpointCounter(
    root: String,
    overlay: FileOverlay,
    keeper: Option[CheckpointKeeper] = None
) {
  private val replaced = new ReplacedByOverlay(root, overlay)
  var files = 0L
  var bytes = 0L
  val removedAt = Array.newBuilder[Long]
  def add(add: Row, remove: Row): Unit =
    if (add != null && !add.isNullAt(0)) {
      if (!replaced(add)) {
        files += 1
        if (!add.isNullAt(1)) bytes += add.getLong(1)
        keeper.foreach(_.add(add))
      }
    } else if (remove != null && !remove.isNullAt(0) && !replaced(remove)) {
      if (!remove.isNullAt(1)) removedAt += remove.getLong(1)
      keeper.foreach(_.remove(remove))
    }
}

/** Lean adds and removes held while their estimated bytes stay within `budget`; past it, none:
  * [[DriverCheckpoint.eachFile]] then reads the checkpoint again.
  */
private[replay] final class CheckpointKeeper(budget: Long) {
  private var (adds, removes) = (Array.newBuilder[Row], Array.newBuilder[Row])
  private var bytes = 0L
  private def fits(a: Row): Boolean = {
    bytes += CheckpointKeeper.bytes(a)
    if (bytes > budget) { adds = null; removes = null }
    adds != null
  }
  def add(a: Row): Unit = if (adds != null && fits(a)) adds += a
  def remove(r: Row): Unit = if (adds != null && fits(r)) removes += r
  def result: Option[(Array[Row], Array[Row])] =
    Option(adds).map(a => (a.result(), removes.result()))
}

private[replay] object CheckpointKeeper {

  /** Estimated heap bytes of a lean add or remove held by a reader that keeps its files: its path
    * and deletion vector's characters, and the rows, boxes and arrays around them.
    */
  def bytes(a: Row): Long = {
    val dv = a.getAs[Row](2)
    val dvChars = if (dv == null || dv.isNullAt(1)) 0L else dv.getString(1).length.toLong
    2L * (a.getString(0).length + dvChars) + 192L
  }
}
