package txlog.write

import org.apache.spark.sql.functions.{coalesce, col, count, lit, sum}

import txlog.{DeleteResult, Transaction}
import txlog.protocol.WriterGate
import txlog.table.TableContext
import txlog.util.Jobs

/** `DeltaLog.delete`: the rows of the partitions a predicate on partition columns selects, deleted
  * by removing their files whole (no data file is read or written), committed as `DELETE` with
  * delta-spark's parameters and metrics. The predicate is recorded as read, so a concurrent commit
  * adding files it selects conflicts (CONCURRENT_APPEND), one removing them too
  * (CONCURRENT_DELETE_DELETE).
  */
private[txlog] object PartitionDelete {

  def delete(ctx: TableContext, predicate: String): DeleteResult = {
    val txn = Transaction.start(ctx)
    val snap = txn.readSnapshot.get
    WriterGate.check(ctx.root, snap.version, snap.protocol, "delete")
    val where = PartitionPredicate.onFiles(ctx.spark, "predicate", predicate, snap.metadata)
    val files = txn.readFiles(where)
    val (n, bytes, rows) =
      Jobs.named(ctx.spark, s"count the files a delete removes from ${ctx.root}") {
        val numRecords = col("stats_parsed.numRecords")
        val r = files
          .agg(
            count(lit(1)),
            coalesce(sum(col("size")), lit(0L)),
            sum(numRecords),
            count(numRecords)
          )
          .collect()
          .head
        // rows deleted are known when every file removed has its row count
        val known = r.getLong(3) == r.getLong(0)
        (r.getLong(0), r.getLong(1), if (known && !r.isNullAt(2)) Some(r.getLong(2)) else None)
      }
    if (n == 0) DeleteResult(snap.version, committed = false, 0, 0, Some(0L))
    else {
      txn.removeFiles(FilePlan.removes(files, dataChange = true))
      val metrics = Map(
        "numRemovedFiles" -> n.toString,
        "numRemovedBytes" -> bytes.toString,
        "numAddedFiles" -> "0",
        "numAddedBytes" -> "0",
        "numCopiedRows" -> "0"
      ) ++ rows.map(r => "numDeletedRows" -> r.toString)
      val r = txn.commit("DELETE", Map("predicate" -> FilePlan.jsonArray(Seq(predicate))), metrics)
      DeleteResult(r.version, r.committed, n, bytes, rows)
    }
  }
}
