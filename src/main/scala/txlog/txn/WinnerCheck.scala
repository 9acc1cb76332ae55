package txlog.txn

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions._

import txlog.protocol.RowTrackingSpec
import txlog.Metadata
import txlog.errors.TxlogErrors
import txlog.log.TablePath
import txlog.replay.FileKeys
import txlog.protocol.FileColumns
import txlog.util.Jobs

/** The checks of one transaction against one winning commit, in [[ConflictChecker]]'s order. Only
  * the first [[TxlogErrors.ConflictFilesShown]] conflicting files are brought to the driver.
  *
  * @param readMetadata
  *   the read snapshot's metadata (asked only when predicates must be evaluated)
  */
private[txn] final class WinnerCheck(
    spark: SparkSession,
    table: TablePath,
    isolation: IsolationLevel,
    read: ReadSet,
    staged: StagedSummary,
    winner: WinningCommit,
    readMetadata: () => Metadata
) {
  private val v = winner.version
  private val level = isolation.name
  private val Shown = TxlogErrors.ConflictFilesShown

  def run(): Unit = {
    if (winner.protocol.nonEmpty) throw TxlogErrors.protocolChanged(table.root, v, level)
    // a winner that only raised identity high water marks conflicts only with a transaction
    // that changes metadata too (delta-spark's rule: a write generating identity values
    // concurrently with another fails; a DELETE beside one rebases)
    val identityOnly = winner.identityOnly && !staged.changesMetadata
    if (winner.metadata.nonEmpty && !identityOnly) {
      throw TxlogErrors.metadataChanged(table.root, v, level)
    }
    val domains = (staged.domains ++ read.domains - RowTrackingSpec.Domain)
      .intersect(winner.domains)
    domains.toSeq.sorted.headOption.foreach { d =>
      throw TxlogErrors.concurrentTransaction(table.root, v, level, "domain", d)
    }
    (staged.appIds ++ read.appIds).intersect(winner.appIds).toSeq.sorted.headOption.foreach { id =>
      throw TxlogErrors.concurrentTransaction(table.root, v, level, "application id", id)
    }
    checkAppends()
    checkDeleteRead()
    checkDeleteDelete()
  }

  /** Whether the winner's adds count for the append check at this isolation level. */
  private def addsCount: Boolean = isolation match {
    case IsolationLevel.Serializable => true
    case IsolationLevel.WriteSerializable =>
      !winner.isBlindAppend.getOrElse(false) || staged.changesMetadata
  }

  private def checkAppends(): Unit = {
    val readsFiles = read.wholeTable || read.predicates.nonEmpty
    if (staged.isBlindAppend || !readsFiles || !addsCount || winner.numAdds.contains(0L)) return
    val dataAdds = winner.adds.where(coalesce(col("dataChange"), lit(true)))
    val matching =
      if (read.wholeTable) dataAdds
      else {
        val md = readMetadata()
        val files = dataAdds.select(
          col("*"),
          FileColumns
            .partitionValuesParsed(col("partitionValues"), md)
            .as("partitionValues_parsed"),
          FileColumns.statsParsed(col("stats"), md).as("stats_parsed")
        )
        files.where(read.predicates.map(WinnerCheck.possiblyMatches).reduce(_ || _))
      }
    val found = first(s"check the adds of commit $v against the files read", matching)
    if (found.nonEmpty) throw TxlogErrors.concurrentAppend(table.root, v, level, found)
  }

  private def checkDeleteRead(): Unit = {
    if (winner.numRemoves.contains(0L)) return
    val dataRemoves = winner.removes.where(coalesce(col("dataChange"), lit(true)))
    val found =
      if (read.wholeTable) first(s"list the removes of commit $v", dataRemoves)
      else if (read.filesRead.isEmpty) Nil
      else removedOf(read.filesRead, dataRemoves, s"check the files read against commit $v")
    if (found.nonEmpty) throw TxlogErrors.concurrentDeleteRead(table.root, v, level, found)
  }

  /** Both removed a file: compared by path, as delta-spark does, so that a remove spelled with
    * another deletion vector (or none) still counts.
    */
  private def checkDeleteDelete(): Unit = {
    if (winner.numRemoves.contains(0L) || staged.removes.isEmpty) return
    val found = removedOf(
      staged.removes,
      winner.removes,
      s"check the removes against commit $v",
      Seq("_k_path")
    )
    if (found.nonEmpty) throw TxlogErrors.concurrentDeleteDelete(table.root, v, level, found)
  }

  /** The paths (as `ours` spells them) of the files of `ours` that `removes` removes, keyed by
    * `keys` (by default (path, deletion vector), as replay keys files). The winner's removes are
    * broadcast when the winner was read on the driver (it is then at most a few MiB of JSON).
    */
  private def removedOf(
      ours: Seq[DataFrame],
      removes: DataFrame,
      job: String,
      keys: Seq[String] = Seq("_k_path", "_k_dv")
  ): Seq[String] = {
    val theirs = FileKeys.keyedFiles(removes, table.root).select(keys.map(col): _*).distinct()
    val small = if (winner.numRemoves.isDefined) broadcast(theirs) else theirs
    val mine = ours.map(FileKeys.keyedFiles(_, table.root)).reduce(_ unionByName _)
    first(job, mine.join(small, keys, "left_semi"))
  }

  /** Up to [[Shown]] values of `path` of `df`, by a named job. */
  private def first(job: String, df: DataFrame): Seq[String] =
    Jobs
      .named(spark, job)(df.select(col("path").cast("string")).limit(Shown).collect())
      .map(_.getString(0))
      .toSeq
}

private[txn] object WinnerCheck {

  /** Data skipping's reading of a predicate over a file's columns: a file matches unless the
    * predicate is known to be false for it; a predicate its stats cannot decide (missing stats, a
    * column without min/max: null) counts as a match.
    */
  def possiblyMatches(predicate: Column): Column = coalesce(predicate, lit(true))
}
