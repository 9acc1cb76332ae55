package txlog.restore

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{coalesce, col, count, lit, sum}

import txlog.{RestoreResult, Snapshot, Transaction}
import txlog.table.TableContext
import txlog.replay.ReadErrors
import txlog.protocol.TableFeatures
import txlog.util.{Jobs, SerializableConf}

/** RESTORE, by delta-spark's rules (its RestoreTableCommand):
  *
  *   1. A transaction on the latest version; the target version: the one asked for, or the latest
  *      commit at or before the timestamp, by txlog's time travel (its own errors out of range).
  *      The latest version itself is allowed, as delta-spark 4.4 allows it: nothing to do, and
  *      (like delta-spark) no commit.
  *   1. [[RestoreDiff]]: the files to add back and to remove, as DataFrames.
  *   1. Unless `force`, tasks check that every file to add back exists ([[MissingFiles]]).
  *   1. Metrics by one aggregation job per side; the target version's file count and size.
  *   1. Unless a dry run, one `RESTORE` commit through the transaction API: the file actions
  *      (staged by executors when large), the target version's metadata, and the protocol of both
  *      versions merged (a restore never downgrades it). The transaction reads the whole table, so
  *      a concurrent change to its files is a conflict.
  *
  * The driver holds counts, at most [[MissingFiles.Examples]] paths and the two snapshots' states.
  */
private[txlog] object Restore {

  final case class Options(
      version: Option[Long],
      timestamp: Option[String],
      force: Boolean,
      dryRun: Boolean
  )

  def run(
      ctx: TableContext,
      options: Options,
      progress: String => Unit = _ => ()
  ): RestoreResult = {
    val spark = ctx.spark
    val root = ctx.root
    val txn = Transaction.start(ctx)
    val latest = txn.readSnapshot.get
    val target: Snapshot = options.version match {
      case Some(v) if v == latest.version => latest
      case Some(v)                        => ctx.snapshots.at(v)
      case None                           => ctx.snapshots.asOf(options.timestamp.get)
    }
    def step[T](name: String)(body: => T): T = {
      progress(name)
      Jobs.named(spark, s"restore $root to version ${target.version}: $name") {
        ReadErrors.translate(latest.segment)(body)
      }
    }
    val diff = RestoreDiff.of(latest, target)
    if (!options.force) step("check the files to add back exist") {
      val conf = new SerializableConf(ctx.table.hadoopConf)
      MissingFiles.check(root, target.version, MissingFiles.of(spark, root, conf, diff.toAdd))
    }
    val (restored, restoredSize) = step("measure the files to add back")(tally(diff.toAdd))
    val (removed, removedSize) = step("measure the files to remove")(tally(diff.toRemove))
    val (afterFiles, afterSize) =
      step("count the files of the restored version")((target.numFiles, target.sizeInBytes))
    def result(committed: Option[Long]) = RestoreResult(
      root,
      target.version,
      latest.version,
      committed,
      options.dryRun,
      afterSize,
      afterFiles,
      removed,
      restored,
      removedSize,
      restoredSize
    )
    if (options.dryRun || target.version == latest.version) result(None)
    else {
      txn.restoring()
      txn.readWholeTable()
      txn
        .addFiles(diff.toAdd)
        .removeFiles(diff.toRemove)
        .updateMetadata(RestoredMetadata.of(latest.metadata, target.metadata))
      val merged = TableFeatures.withFeatures(
        latest.protocol,
        TableFeatures.supported(target.protocol)
      )
      if (merged != latest.protocol) txn.upgradeProtocol(merged)
      val parameters =
        options.version.map(v => "version" -> v.toString) ++
          options.timestamp.map(t => "timestamp" -> t)
      val r = result(None)
      progress("commit")
      val committed = txn.commit(
        "RESTORE",
        parameters.toMap,
        r.metrics.map { case (k, v) => k -> v.toString }
      )
      r.copy(version = Some(committed.version))
    }
  }

  /** (files, bytes) of `df`'s rows: one aggregation job. */
  private def tally(df: DataFrame): (Long, Long) = {
    val r = df.agg(count(lit(1)), coalesce(sum(col("size")), lit(0L))).head()
    (r.getLong(0), r.getLong(1))
  }
}
