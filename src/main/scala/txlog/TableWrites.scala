package txlog

/** Data changes of a [[DeltaLog]]'s table beyond `DeltaLog.write`: deleting whole partitions
  * (`txlog.write` does the work).
  *
  * {{{
  * val log = txlog.DeltaLog.forTable(spark, "/data/events")
  * log.delete("date < '2024-01-01'")
  * }}}
  */
trait TableWrites { self: DeltaLog =>

  /** Deletes the rows of the partitions `predicate` selects (a SQL condition naming only partition
    * columns) by removing their files whole, as one `DELETE` commit; nothing is committed when no
    * file matches. INVALID_ARGUMENT for a predicate that names another column or does not parse,
    * APPEND_ONLY_VIOLATION on an append-only table, a conflict error when a concurrent commit adds
    * or removes files the predicate selects.
    *
    * {{{
    * val r = log.delete("date < '2024-01-01' AND region = 'eu'")
    * println(s"${r.numRemovedFiles} files removed in v${r.version}")
    * }}}
    */
  def delete(predicate: String): DeleteResult =
    txlog.write.PartitionDelete.delete(context, predicate)
}
