package txlog.history

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{LongType, StructType}

import txlog.{Metadata, Protocol}
import txlog.protocol.ActionSchemas
import txlog.log.LogListing
import txlog.replay.{LogActions, LogLineReader}
import txlog.timetravel.CommitTimeline

/** The table's history: the commitInfo of each listed commit, newest first, with the commit
  * timestamp as time travel sees it ([[CommitTimeline]]: in-commit timestamp where in force, else
  * the adjusted file modification time).
  */
private[txlog] object History {

  def of(
      spark: SparkSession,
      listing: LogListing,
      latestProtocol: Protocol,
      latestMetadata: Metadata
  ): DataFrame = {
    require(listing.isComplete, "needs every commit: a complete listing")
    val commits = listing.commits.filter(_.version >= listing.earliestListed)
    val timeline = CommitTimeline(listing, latestProtocol, latestMetadata)
    val infos = LogActions
      .parseLines(
        LogLineReader.read(spark, listing.table, commits.map(c => c.version -> c.file)),
        new StructType().add("commitInfo", ActionSchemas.commitInfo)
      )
      .where(col("commitInfo").isNotNull)
      .select(col("version"), col("commitInfo"))
    // In-commit timestamps, where in force, are collected (one small row per commit) so that the
    // timeline alone decides every timestamp; for a commit without one the timeline reads the
    // commit itself and fails with MALFORMED_LOG_FILE naming it.
    val icts: Map[Long, Long] = timeline.ictFrom.fold(Map.empty[Long, Long]) { from =>
      infos
        .where(col("version") >= from && col("commitInfo.inCommitTimestamp").isNotNull)
        .select(col("version"), col("commitInfo.inCommitTimestamp"))
        .collect()
        .map(r => r.getLong(0) -> r.getLong(1))
        .toMap
    }
    val times = spark.createDataFrame(
      commits.map(c => Row(c.version, timeline.timestampOf(c.version, icts.get(c.version)))).asJava,
      new StructType().add("version", LongType).add("commitTimestamp", LongType)
    )
    val fields =
      ActionSchemas.commitInfo.fieldNames.filterNot(Set("timestamp", "inCommitTimestamp"))
    infos
      .join(times, Seq("version"), "right")
      .select(
        col("version") +: (col("commitTimestamp") / 1000).cast("timestamp").as("timestamp") +:
          fields.toSeq.map(f => col(s"commitInfo.$f").as(f)): _*
      )
      .orderBy(col("version").desc)
  }
}
