package txlog.write

import scala.util.control.NonFatal

import org.apache.spark.sql.{AnalysisException, DataFrame}
import org.apache.spark.sql.execution.datasources.FileFormat
import org.apache.spark.sql.functions.{col, expr}

import txlog.{DeleteResult, Snapshot}
import txlog.deletionvectors.DeletionVectorWriter
import txlog.errors.TxlogErrors
import txlog.scan.{TableParquetFormat, TableScan}
import txlog.table.TableContext
import txlog.util.Jobs

/** `DeltaLog.delete` with a condition on data columns: the rows it matches deleted by deletion
  * vectors, as SQL's `DELETE FROM` does through Spark's row-level operations
  * (`txlog.sql.RowLevelDv`): the table's rows with their file and row index, filtered by the
  * condition, clustered by file and sorted by row index; each task writes its files' new vectors
  * ([[DvDeletion]]); the driver commits them as one `DELETE` ([[DvDelete]]).
  */
private[txlog] object RowDelete {

  private val Path = "txlog_path"
  private val Index = "row_index"
  private val Dv = "txlog_deletion_vector"

  def delete(ctx: TableContext, predicate: String): DeleteResult = {
    val started = System.nanoTime()
    val snap = ctx.snapshots.update()
    val touched = this.touched(ctx, snap, predicate)
    DvDelete
      .commit(ctx, snap, touched, Seq(predicate), started)
      .getOrElse(DeleteResult(snap.version, committed = false, 0L, 0L, Some(0L)))
  }

  /** The files of `snap` whose rows `predicate` matches, with their new deletion vectors, written
    * (the commit is [[DvDelete.commit]]'s).
    */
  def touched(ctx: TableContext, snap: Snapshot, predicate: String): Seq[DvDelete.Touched] = {
    val meta = col(FileFormat.METADATA_NAME)
    val matched =
      try {
        val df = TableScan
          .dataFrame(snap, rowLevel = true)
          .where(expr(predicate))
          .select(
            meta.getField(TableParquetFormat.PathField).as(Path),
            meta.getField("row_index").as(Index),
            meta.getField(TableParquetFormat.DvField).as(Dv)
          )
        df.queryExecution.assertAnalyzed()
        df
      } catch {
        case e: AnalysisException =>
          throw TxlogErrors.invalidArgument("predicate", s"'$predicate': ${e.getMessage}")
        case NonFatal(e) if e.getClass.getName.contains("ParseException") =>
          throw TxlogErrors.invalidArgument("predicate", s"'$predicate' does not parse: $e")
      }
    DvDelete.check(ctx, snap)
    val target = DeletionVectorWriter.Target(
      ctx.root,
      snap.version,
      snap.config,
      ctx.table.hadoopConf
    )
    Jobs.named(ctx.spark, s"write the deletion vectors of a DELETE on ${ctx.root}") {
      write(matched, target)
    }
  }

  /** Every task's files with their new vectors (one entry per touched file reaches the driver). */
  private def write(
      matched: DataFrame,
      target: DeletionVectorWriter.Target
  ): Seq[DvDelete.Touched] = {
    val sorted = matched.repartition(col(Path)).sortWithinPartitions(Path, Index)
    sorted.queryExecution.toRdd
      .mapPartitions { rows =>
        val d = new DvDeletion(target)
        try {
          rows.foreach { r =>
            d.delete(
              r.getUTF8String(0).toString,
              if (r.isNullAt(2)) null else r.getString(2),
              r.getLong(1)
            )
          }
          Iterator(d.finish())
        } catch {
          case NonFatal(e) =>
            d.abort(e)
            throw e
        }
      }
      .collect()
      .toSeq
      .flatten
  }
}
