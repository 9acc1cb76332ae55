package txlog

import org.apache.spark.sql.DataFrame

import txlog.errors.TxlogErrors

/** Data changes of a [[DeltaLog]]'s table beyond `DeltaLog.write`: DELETE, UPDATE, MERGE, OPTIMIZE
  * and purging deletion vectors (`txlog.write` and `txlog.sql` do the work).
  *
  * {{{
  * val log = txlog.DeltaLog.forTable(spark, "/data/events")
  * log.delete("date < '2024-01-01'")
  * }}}
  */
trait TableWrites { self: DeltaLog =>

  /** Deletes the rows `predicate` (a SQL condition on the table's columns) matches, as one `DELETE`
    * commit; nothing is committed when no row matches. A condition naming partition columns only
    * removes the files of the partitions it selects whole, reading no data; any other deletes rows
    * as SQL's `DELETE FROM` does: by deletion vectors where the table enables them
    * (`delta.enableDeletionVectors`), else by rewriting the files holding matched rows
    * (copy-on-write). Copy-on-write on a table recording the change data feed writes the deleted
    * rows as change data files (by deletion vectors none is needed: the feed reads the deleted rows
    * from the vectors), as delta-spark does. INVALID_ARGUMENT for a predicate that does not parse
    * or names no column of the table, APPEND_ONLY_VIOLATION on an append-only table, a conflict
    * error when a concurrent commit changes files the delete depends on.
    *
    * {{{
    * val r = log.delete("date < '2024-01-01' AND region = 'eu'")
    * println(s"${r.numRemovedFiles} files removed in v${r.version}")
    * log.delete("user_id = 42") // by deletion vectors
    * }}}
    */
  def delete(predicate: String): DeleteResult = {
    val md = context.snapshots.update().metadata
    if (txlog.write.PartitionPredicate.partitionOnly(context.spark, "predicate", predicate, md)) {
      txlog.write.PartitionDelete.delete(context, predicate)
    } else txlog.write.RowDelete.delete(context, predicate)
  }

  /** Updates the rows `condition` (a SQL condition on the table's columns) matches, as SQL's
    * `UPDATE ... SET ... WHERE` does: `set` maps columns (`a`, or `a.b` for a nested field) to SQL
    * expressions over the row's old values. One `UPDATE` commit, by deletion vectors where the
    * table enables them, else copy-on-write; nothing is committed when no row matches. New values
    * are checked as an insert's (NOT NULL, CHECK constraints, CHAR / VARCHAR limits:
    * CONSTRAINT_VIOLATION, nothing committed). INVALID_ARGUMENT for an expression that does not
    * parse or resolve; the tables SQL's UPDATE refuses (docs/sql.md) are refused alike, before
    * anything is written. (`update()` with no arguments refreshes the snapshot.)
    *
    * {{{
    * val r = log.update("id = 7", Map("status" -> "'closed'", "n" -> "n + 1"))
    * println(s"${r.numUpdatedRows} rows updated in v${r.version}")
    * }}}
    */
  def update(condition: String, set: Map[String, String]): UpdateResult = {
    if (condition == null) throw TxlogErrors.invalidArgument("condition", "is null")
    updateRows(Some(condition), set)
  }

  /** [[update(condition:String,set:Map[String,String])*]] of every row. Example:
    * `log.update(Map("region" -> "upper(region)"))`.
    */
  def update(set: Map[String, String]): UpdateResult = updateRows(None, set)

  private def updateRows(condition: Option[String], set: Map[String, String]): UpdateResult = {
    if (set == null) throw TxlogErrors.invalidArgument("set", "is null")
    val (read, outcome) = txlog.sql.DmlStatements.update(context, condition, set.toSeq)
    outcome.fold(UpdateResult(read, committed = false, 0L, 0L, 0L)) { o =>
      UpdateResult(
        o.commit.version,
        o.commit.committed,
        o.count("numUpdatedRows"),
        o.count("numAddedFiles"),
        o.count("numRemovedFiles")
      )
    }
  }

  /** Starts a MERGE of `source` into the table on `condition` (a SQL condition over the target,
    * named `targetAlias`, and the source by its DataFrame's own alias), with delta-spark's
    * `DeltaTable.merge` builder: add `whenMatched` / `whenNotMatched` / `whenNotMatchedBySource`
    * clauses, then [[MergeBuilder.execute]].
    *
    * {{{
    * log.merge(updates.as("s"), "t.id = s.id", targetAlias = "t")
    *   .whenMatched().updateAll()
    *   .whenNotMatched().insertAll()
    *   .execute()
    * }}}
    */
  def merge(source: DataFrame, condition: String, targetAlias: String = "target"): MergeBuilder =
    new MergeBuilder(context, source, condition, targetAlias, Vector.empty)

  /** OPTIMIZE: compacts the small files of the partitions `where` selects (all without it; a SQL
    * condition on partition columns) into files of about `targetSize` bytes, applying deletion
    * vectors, as delta-spark's bin-packing does (files under `minFileSize`, or whose deletion
    * vector deletes over 5% of their rows; both sizes default to delta-spark's 1 GiB). One commit
    * removes the compacted files and adds the new ones with `dataChange` false, so readers of the
    * change data feed and streams see no change; every older version still reads. With `dryRun`
    * nothing is written and the result says what would be. INVALID_ARGUMENT for a bad `where` or
    * size. On tables with row tracking the rewritten rows keep their row ids and commit versions
    * (materialized). A bin one of whose files a concurrent commit removed (or gave another deletion
    * vector) is left out and the other bins committed (`numConflictedBins` counts them).
    *
    * {{{
    * val r = log.optimize(where = Some("date >= '2024-06-01'"))
    * println(s"${r.numRemovedFiles} files into ${r.numAddedFiles}")
    * }}}
    */
  def optimize(
      where: Option[String] = None,
      targetSize: Long = txlog.write.Optimize.DefaultTargetSize,
      minFileSize: Long = txlog.write.Optimize.DefaultTargetSize,
      dryRun: Boolean = false
  ): OptimizeResult =
    txlog.write.Optimize.optimize(context, where, targetSize, minFileSize, dryRun)

  /** Purges deletion vectors (delta-spark's `REORG TABLE ... APPLY (PURGE)`): every file of the
    * partitions `where` selects whose deletion vector deletes rows is rewritten without the deleted
    * rows (files of a partition packed into files of up to 1 GiB), in one `REORG` commit whose adds
    * and removes change no data; the deletion vector files are then referenced only by older
    * versions (VACUUM removes them after the retention). With `dryRun` nothing is written. Errors
    * and concurrent commits as for [[optimize]].
    *
    * {{{
    * val r = log.purgeDeletionVectors()
    * println(s"${r.numRemovedFiles} files rewritten without their deletion vectors")
    * }}}
    */
  def purgeDeletionVectors(where: Option[String] = None, dryRun: Boolean = false): OptimizeResult =
    txlog.write.Optimize.purge(context, where, dryRun)
}
