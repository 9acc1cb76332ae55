package txlog.write

import org.apache.spark.sql.functions.{coalesce, col, count, lit, sum, when}

import txlog.{DeleteResult, Transaction}
import txlog.table.TableContext
import txlog.util.Jobs

/** `DeltaLog.delete`: the rows of the partitions a predicate on partition columns selects, deleted
  * by removing their files whole (no data file is read or written), committed as `DELETE` with
  * delta-spark's parameters and metrics (those of its metadata-only delete: the rows a file's
  * deletion vector already deleted are not counted again). The predicate is recorded as read, so a
  * concurrent commit adding files it selects conflicts (CONCURRENT_APPEND), one removing them too
  * (CONCURRENT_DELETE_DELETE).
  */
private[txlog] object PartitionDelete {

  def delete(ctx: TableContext, predicate: String): DeleteResult = {
    val start = System.nanoTime()
    val txn = Transaction.start(ctx)
    val snap = txn.readSnapshot.get
    txlog.txn.WriterRules
      .checkDataCommit(ctx.root, snap.version, snap.protocol, snap.metadata, "delete")
    val where = PartitionPredicate.onFiles(ctx.spark, "predicate", predicate, snap.metadata)
    val files = txn.readFiles(where)
    val hasDv = files.columns.contains("deletionVector")
    val (n, bytes, rows, dvs) =
      Jobs.named(ctx.spark, s"count the files a delete removes from ${ctx.root}") {
        // a file's live rows: numRecords less its deletion vector's cardinality (delta-spark's
        // numLogicalRecords)
        val deleted = if (hasDv) coalesce(col("deletionVector.cardinality"), lit(0L)) else lit(0L)
        val numRecords = col("stats_parsed.numRecords") - deleted
        val withDv = if (hasDv) when(col("deletionVector").isNotNull, 1L) else lit(null)
        val r = files
          .agg(
            count(lit(1)),
            coalesce(sum(col("size")), lit(0L)),
            sum(numRecords),
            count(numRecords),
            count(withDv)
          )
          .collect()
          .head
        // rows deleted are known when every file removed has its row count
        val known = r.getLong(3) == r.getLong(0)
        val rows = if (known && !r.isNullAt(2)) Some(r.getLong(2)) else None
        (r.getLong(0), r.getLong(1), rows, r.getLong(4))
      }
    val scanMs = (System.nanoTime() - start) / 1000000L
    if (n == 0) DeleteResult(snap.version, committed = false, 0, 0, Some(0L))
    else {
      txn.removeFiles(FilePlan.removes(files, dataChange = true))
      // delta-spark leaves out numDeletedRows, numCopiedRows and numAddedFiles when files were
      // removed but no row counted (its Delete.transformMetrics)
      val rowMetrics =
        if (rows.contains(0L)) Map.empty[String, String]
        else
          Map("numAddedFiles" -> "0", "numCopiedRows" -> "0") ++
            rows.map(r => "numDeletedRows" -> r.toString)
      val metrics = Map(
        "numRemovedFiles" -> n.toString,
        "numRemovedBytes" -> bytes.toString,
        "numAddedBytes" -> "0",
        "numAddedChangeFiles" -> "0",
        "numDeletionVectorsAdded" -> "0",
        "numDeletionVectorsRemoved" -> dvs.toString,
        "numDeletionVectorsUpdated" -> "0",
        "scanTimeMs" -> scanMs.toString,
        "rewriteTimeMs" -> "0",
        "executionTimeMs" -> ((System.nanoTime() - start) / 1000000L).toString
      ) ++ rowMetrics
      val r =
        txn.commit("DELETE", Map("predicate" -> txlog.util.JsonText.array(Seq(predicate))), metrics)
      DeleteResult(r.version, r.committed, n, bytes, rows)
    }
  }
}
