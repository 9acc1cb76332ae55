package txlog.write

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.{col, lit}

import txlog.Snapshot
import txlog.changes.{ChangeFile, ChangeScan}
import txlog.deletionvectors.DvDescriptor
import txlog.protocol.FileColumns
import txlog.replay.FileKeys
import txlog.scan.ReadSpec
import txlog.table.TableContext
import txlog.util.Jobs

/** The change data files of a DELETE, UPDATE or MERGE on a table recording the change data feed
  * ("Change Data Files"), as delta-spark writes them, so that `table_changes` reads the same rows
  * from either table:
  *   - the rows the statement writes, by its tasks as they write them (`txlog.sql.DvRowWriter`): an
  *     updated row's new values as `update_postimage`, a MERGE's inserted row as `insert`;
  *   - the rows the touched files lose, by one Spark job once the tasks are done ([[lostRows]]):
  *     each touched file read for the rows its new vector deletes and its old one did not, as
  *     `update_preimage` (an UPDATE), `delete` (a DELETE), or as the task's notes tell (a MERGE:
  *     [[DvDelete.Notes]], the rows it updated and those it deleted).
  *
  * A DELETE by deletion vectors writes none, as delta-spark's: the feed's readers take its deleted
  * rows from the difference of the old and new vectors. Nor does a MERGE that only inserts (an
  * append: its added files are read as inserts).
  *
  * {{{
  * if (DmlChangeData.written(snap, "UPDATE")) txn.addCdcFiles(DmlChangeData.actions(files))
  * }}}
  */
private[txlog] object DmlChangeData {

  /** Whether `operation` on `snap` writes change data files: the feed is on and the operation
    * writes rows (UPDATE, MERGE) or rewrites files (a DELETE copy-on-write).
    */
  def written(snap: Snapshot, operation: String): Boolean =
    snap.config.changeDataFeed && (operation != "DELETE" || CopyOnWrite.applies(snap))

  /** The `cdc` actions of change data files written. */
  def actions(files: WrittenFiles): DataFrame = files.adds.select(
    col("path"),
    col("partitionValues"),
    col("size"),
    lit(false).as("dataChange")
  )

  /** The rows the touched files (`files`: rows of the read snapshot's files, one per entry of
    * `touched`) lose to their new vectors, with their change type, written as change data files.
    * Driver memory: one entry per touched file (its path, size, partition values and vectors).
    */
  def lostRows(
      ctx: TableContext,
      snap: Snapshot,
      operation: String,
      files: DataFrame,
      touched: Seq[DvDelete.Touched]
  ): WrittenFiles = {
    val spark = ctx.spark
    val md = snap.metadata
    val byPath = touched.map(t => t.path -> t).toMap
    val listed =
      Jobs.named(spark, s"list the files a $operation's change data reads, ${ctx.root}") {
        files
          .select(
            col("path"),
            col("size"),
            col("modificationTime"),
            FileColumns.partitionValuesParsed(col("partitionValues"), md),
            col("deletionVector")
          )
          .collect()
          .toSeq
      }
    val changed = listed.flatMap { r =>
      val t = byPath(r.getString(0))
      val old = Option(r.getStruct(4)).map(DvDescriptor.fromRow)
      def read(changeType: String, keep: DvDescriptor, exclude: Option[DvDescriptor]) =
        ChangeFile(
          snap.version,
          0L,
          Some(changeType),
          FileKeys.canonicalize(ctx.root, t.path),
          r.getLong(1),
          r.getLong(2),
          r.getStruct(3),
          exclude,
          Some(keep)
        )
      t.notes match {
        case Some(n) =>
          n.updated.map(read("update_preimage", _, None)).toSeq ++
            n.deleted.map(read("delete", _, None)).toSeq
        case None =>
          val kind = if (operation == "UPDATE") "update_preimage" else "delete"
          Seq(read(kind, t.dv, old))
      }
    }
    val rows = ChangeScan
      .dataFrame(spark, ReadSpec(snap), changed, s"the rows a $operation changes in ${ctx.root}")
      .select(
        (md.schema.fieldNames.toSeq :+ ChangeScan.ChangeType).map(c => col(RowChecks.quote(c))): _*
      )
    DataFiles.write(rows, ctx.table, FilePlan.changeData(ctx.root, snap.protocol, md), Nil)
  }

  /** The vectors of `touched`'s notes, which no version names. */
  def notes(touched: Seq[DvDelete.Touched]): Seq[DvDescriptor] =
    touched.flatMap(_.notes).flatMap(n => n.updated.toSeq ++ n.deleted.toSeq)
}
