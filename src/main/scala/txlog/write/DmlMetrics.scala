package txlog.write

/** The `operationMetrics` of a DELETE, UPDATE or MERGE (by deletion vectors or copy-on-write),
  * under delta-spark's names and with its counting (checked against delta-spark's own commits by
  * `RowLevelParitySuite` and `MergeParitySuite`).
  *
  * A MERGE leaves out what its writer cannot know: the source's row count (`numSourceRows`) and
  * which clause (matched or not matched by source) updated or deleted a row; Spark hands the writer
  * each row's change, not the clause that made it.
  *
  * {{{
  * DmlMetrics.of("DELETE", counts, scanMs = 120L, started = t0)
  * }}}
  */
private[txlog] object DmlMetrics {

  /** What the commit does: the files touched (given new vectors or removed whole) and their bytes,
    * those removed whole and their bytes, the touched files that had a vector, those whose vector
    * grew (had one and keep rows), the rows the new vectors newly delete (`marked`), the files,
    * bytes and rows written, and how many of the written rows are updates (the rest inserts);
    * copy-on-write ([[CopyOnWrite]]) also the rows copied into rewritten files (whose files and
    * bytes are among those written, not among `addedRows`) and the rewrite's time.
    */
  final case class Counts(
      touched: Long,
      touchedBytes: Long,
      removedWhole: Long,
      removedWholeBytes: Long,
      dvsRemoved: Long,
      dvsUpdated: Long,
      marked: Long,
      added: Long,
      addedBytes: Long,
      addedRows: Long,
      updatedRows: Long,
      copied: Long = 0L,
      rewriteMs: Long = 0L,
      changeFiles: Long = 0L,
      changeBytes: Long = 0L
  )

  /** The metrics of `operation` ("DELETE", "UPDATE" or "MERGE"); `started` is the statement's start
    * (System.nanoTime).
    */
  def of(operation: String, c: Counts, scanMs: Long, started: Long): Map[String, String] = {
    val dvs = Map(
      "DeletionVectorsAdded" -> (c.touched - c.removedWhole),
      "DeletionVectorsRemoved" -> c.dvsRemoved,
      "DeletionVectorsUpdated" -> c.dvsUpdated
    )
    val times = Map(
      "scanTimeMs" -> scanMs,
      "rewriteTimeMs" -> c.rewriteMs,
      "executionTimeMs" -> (System.nanoTime() - started) / 1000000L
    )
    val counts = operation match {
      case "MERGE" =>
        Map(
          "numTargetRowsInserted" -> (c.addedRows - c.updatedRows),
          "numTargetRowsUpdated" -> c.updatedRows,
          "numTargetRowsDeleted" -> (c.marked - c.updatedRows),
          "numTargetRowsCopied" -> c.copied,
          "numOutputRows" -> (c.addedRows + c.copied),
          "numTargetFilesAdded" -> c.added,
          "numTargetBytesAdded" -> c.addedBytes,
          "numTargetFilesRemoved" -> c.removedWhole,
          "numTargetBytesRemoved" -> c.removedWholeBytes,
          "numTargetChangeFilesAdded" -> c.changeFiles,
          "numTargetChangeFileBytes" -> c.changeBytes
        ) ++ dvs.map { case (k, v) => s"numTarget$k" -> v }
      case _ =>
        val update = operation == "UPDATE"
        // delta-spark's UPDATE counts every touched file as removed, its DELETE those removed whole
        val (removed, removedBytes) =
          if (update) (c.touched, c.touchedBytes) else (c.removedWhole, c.removedWholeBytes)
        Map(
          "numRemovedFiles" -> removed,
          "numRemovedBytes" -> removedBytes,
          "numAddedFiles" -> c.added,
          "numAddedBytes" -> c.addedBytes,
          "numAddedChangeFiles" -> c.changeFiles,
          "numCopiedRows" -> c.copied,
          (if (update) "numUpdatedRows" else "numDeletedRows") -> c.marked
        ) ++ dvs.map { case (k, v) => s"num$k" -> v }
    }
    (counts ++ times).map { case (k, v) => k -> v.toString }
  }
}
