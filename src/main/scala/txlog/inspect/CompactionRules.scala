package txlog.inspect

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.expressions.Window
import org.apache.spark.sql.functions._

import txlog.TxlogException
import txlog.log.LogListing
import txlog.protocol.CompactionFile
import txlog.replay.{FileKeys, FileReconciler, LogActions}

/** Each log compaction file against the commits it stands for ("Log Compaction Files"): readers use
  * a compaction in place of its commits, so one that lost an add hides a live file (and a vacuum
  * trusting it would delete it). Compared after reconciliation: the newest add or remove per file
  * (path, deletion vector; size for adds) and the latest protocol, metaData, txn per appId and
  * domainMetadata per domain. Spark jobs; a few differences reach the driver.
  */
private[txlog] object CompactionRules {

  def findings(spark: SparkSession, listing: LogListing): Seq[Finding] =
    listing.compactions.flatMap(c => check(spark, listing, c))

  private def check(spark: SparkSession, listing: LogListing, c: CompactionFile): Seq[Finding] = {
    val path = c.file.path
    val commits = listing.commits.filter(x => x.version >= c.start && x.version <= c.version)
    if (commits.map(_.version) != (c.start to c.version)) {
      Seq(
        Finding.warning(
          c.version,
          path,
          Rules.CompactionUnverifiable,
          s"Commits ${c.start} to ${c.version} are not all in the log: the compaction cannot " +
            "be checked against them (readers do not use it without them)."
        )
      )
    } else
      try {
        val root = listing.table.root
        val stored = reconciled(LogActions.tail(spark, listing.table, Seq(c)), root)
        val replayed = reconciled(LogActions.tail(spark, listing.table, commits), root)
        Seq(
          ("only in the compaction", stored.except(replayed)),
          ("only in the commits", replayed.except(stored))
        ).flatMap { case (where, df) =>
          val shown = df.limit(3).collect().map(r => s"${r.getString(0)} ${r.getString(1)}")
          if (shown.isEmpty) None
          else
            Some(
              Finding.error(
                c.version,
                path,
                Rules.CompactionMismatch,
                s"Actions $where ${c.start} to ${c.version}, e.g. ${shown.mkString("; ")}."
              )
            )
        }
      } catch {
        case e: TxlogException if !Validator.Refusals(e.errorClass) =>
          Seq(Finding.error(c.version, path, Rules.CompactionMismatch, e.getMessage))
      }
  }

  /** (kind, key, value) rows of the reconciled state of `actions`. */
  private def reconciled(actions: DataFrame, root: String): DataFrame = {
    val files = FileReconciler
      .newest(FileReconciler.keyed(actions, root))
      .select(
        when(col("add").isNotNull, lit("add")).otherwise(lit("remove")).as("kind"),
        concat_ws(" ", col(FileKeys.PathKey), col(FileKeys.DvKey)).as("key"),
        when(col("add").isNotNull, col("add.size").cast("string")).otherwise(lit("")).as("value")
      )
    val kinds = Seq("protocol", "metaData", "txn", "domainMetadata")
    val kind = coalesce(kinds.map(k => when(col(k).isNotNull, lit(k))): _*)
    val key = coalesce(col("txn.appId"), col("domainMetadata.domain"), lit(""))
    val value = coalesce(kinds.map(k => to_json(col(k))): _*)
    val latest = Window.partitionBy(col("kind"), col("key")).orderBy(col("v").desc, col("i").desc)
    val nonFile = actions
      .where(kinds.map(k => col(k).isNotNull).reduce(_ || _))
      .select(
        kind.as("kind"),
        key.as("key"),
        value.as("value"),
        col("version").as("v"),
        col("idx").as("i")
      )
      .withColumn("_rank", row_number().over(latest))
      .where(col("_rank") === 1)
      .select(col("kind"), col("key"), col("value"))
    files
      .unionByName(nonFile)
      .select(col("kind"), concat_ws(" = ", col("key"), col("value")).as("what"))
  }
}
