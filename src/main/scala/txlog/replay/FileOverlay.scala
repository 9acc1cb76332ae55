package txlog.replay

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.{StringType, StructType}

import txlog.errors.TxlogErrors
import txlog.protocol.ActionSchemas

/** The newest action on one logical file among actions held on the driver: lean `add` or `remove`
  * ([[ActionSchemas.leanFileActions]]), where it came from, and its line, parsed in full on demand.
  */
private[txlog] final case class OverlayAction(
    add: Row,
    remove: Row,
    version: Long,
    idx: Long,
    file: String,
    text: String
) {

  /** Estimated driver bytes of this action under `key`: its line, its lean row (a subset of the
    * line), the key and a constant for the objects holding them.
    */
  def bytes(key: (String, String)): Long =
    2L * text.length + 2L * (key._1.length + key._2.length) + OverlayAction.Overhead
}

private[txlog] object OverlayAction {
  val Overhead = 256L
}

/** File actions held on the driver (a small tail, or the commits since a cached snapshot),
  * reconciled there: the newest action per (pathKey, dvId). Its size grows with those commits,
  * never with the table; the base they apply to stays distributed. `bytes` is the estimated driver
  * memory it holds (sum of [[OverlayAction.bytes]]), which [[SnapshotLoader.update]] keeps under
  * [[DriverBudgets.MaxOverlayBytesConf]].
  */
private[txlog] final class FileOverlay(
    val newest: Map[(String, String), OverlayAction],
    val bytes: Long
) {
  def size: Int = newest.size

  /** These actions with `later`'s (from later commits) winning on shared keys. */
  def ++(later: FileOverlay): FileOverlay = {
    val replaced = later.newest.iterator.map { case (k, _) => newest.get(k).fold(0L)(_.bytes(k)) }
    new FileOverlay(newest ++ later.newest, bytes + later.bytes - replaced.sum)
  }

  /** The keys these actions touch, as (pathKey, dvId): base rows with them are replaced. */
  def touched(spark: SparkSession): DataFrame = spark.createDataFrame(
    newest.keys.map { case (p, d) => Row(p, d) }.toSeq.asJava,
    new StructType().add(FileKeys.PathKey, StringType).add(FileKeys.DvKey, StringType)
  )

  /** The winning actions as (pathKey, dvId, add, remove), lean or full: the full actions are parsed
    * from their lines now (a field of the wrong type there is MALFORMED_LOG_FILE).
    */
  def winners(spark: SparkSession, lean: Boolean): DataFrame = {
    val rows =
      if (lean) newest.toSeq.map { case ((p, d), a) => Row(p, d, a.add, a.remove) }
      else {
        val parser = new LineParser(ActionSchemas.fileActions, Tail.timeZone(spark))
        newest.toSeq.map { case ((p, d), a) =>
          val full = parser.parse(a.text).getOrElse {
            throw TxlogErrors
              .malformedLogFile(a.file, a.version, NonFileState.invalidLine(a.idx, a.text))
          }
          Row(
            p,
            d,
            if (a.add != null) full.get(0) else null,
            if (a.remove != null) full.get(1) else null
          )
        }
      }
    spark.createDataFrame(rows.asJava, if (lean) FileOverlay.leanSchema else FileOverlay.fullSchema)
  }

  /** The lines the winners come from. */
  def lines: LineSet = new LineSet(
    newest.values.groupBy(_.version).map { case (v, as) => v -> as.map(_.idx).toArray.sorted }
  )

  /** Live files, their size, and removes deleted after `tombstoneCutoff`, among the winners. */
  def counts(tombstoneCutoff: Long): FileCounts = newest.values.foldLeft(FileCounts.zero) {
    (c, a) =>
      if (a.add != null) c.copy(files = c.files + 1, bytes = c.bytes + a.add.getAs[Long]("size"))
      else {
        val at = Option(a.remove.getAs[Any]("deletionTimestamp")).fold(0L)(_.asInstanceOf[Long])
        if (at > tombstoneCutoff) c.copy(tombstones = c.tombstones + 1) else c
      }
  }
}

private[txlog] object FileOverlay {
  val empty: FileOverlay = new FileOverlay(Map.empty, 0L)

  private val keys =
    new StructType().add(FileKeys.PathKey, StringType).add(FileKeys.DvKey, StringType)
  private val fullSchema = StructType(keys.fields ++ ActionSchemas.fileActions.fields)
  private val leanSchema = StructType(keys.fields ++ ActionSchemas.leanFileActions.fields)

  /** Reconciles the rows of a [[DriverTail]]. */
  def of(rows: Seq[Row], root: String): FileOverlay = {
    val newest = scala.collection.mutable.HashMap.empty[(String, String), OverlayAction]
    rows.foreach { r =>
      val add = r.getAs[Row]("add")
      val remove = r.getAs[Row]("remove")
      val action =
        if (add != null && add.getAs[String]("path") != null) add
        else if (remove != null && remove.getAs[String]("path") != null) remove
        else null
      if (action != null) {
        val key = (
          FileKeys.pathKeyValue(root, action.getAs[String]("path")),
          FileKeys.dvIdValue(action.getAs[Row]("deletionVector"))
        )
        val (v, i) = (r.getAs[Long]("version"), r.getAs[Long]("idx"))
        if (newest.get(key).forall(w => v > w.version || (v == w.version && i > w.idx))) {
          val (file, text) = (r.getAs[String]("file"), r.getAs[String]("text"))
          newest(key) =
            if (action eq add) OverlayAction(add, null, v, i, file, text)
            else OverlayAction(null, remove, v, i, file, text)
        }
      }
    }
    new FileOverlay(newest.toMap, newest.iterator.map { case (k, a) => a.bytes(k) }.sum)
  }
}
