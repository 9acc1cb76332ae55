package txlog.history

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{LongType, StructType}

import txlog.{Metadata, Protocol}
import txlog.actions.ActionSchemas
import txlog.log.LogListing
import txlog.replay.{LogActions, LogLineReader}
import txlog.timetravel.{CommitTimeline, InCommitTimestamps}

/** The table's history: the commitInfo of each listed commit, newest first, with the commit
  * timestamp as time travel sees it (in-commit timestamp where enabled, else the adjusted file
  * modification time).
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
    val timeline = CommitTimeline(listing)
    val ict = InCommitTimestamps.enabled(latestProtocol, latestMetadata)
    val ictFrom = InCommitTimestamps.enablement(latestMetadata).map(_._1).getOrElse(0L)
    val fileTimes = spark.createDataFrame(
      commits.map(c => Row(c.version, timeline.timestampOf(c.version).get)).asJava,
      new StructType().add("version", LongType).add("fileTimestamp", LongType)
    )
    val infos = LogActions
      .parseLines(
        LogLineReader.read(spark, listing.table, commits.map(c => c.version -> c.file)),
        new StructType().add("commitInfo", ActionSchemas.commitInfo)
      )
      .where(col("commitInfo").isNotNull)
      .select(col("version"), col("commitInfo"))
    val ts = if (ict) {
      when(
        col("version") >= ictFrom && col("commitInfo.inCommitTimestamp").isNotNull,
        col("commitInfo.inCommitTimestamp")
      ).otherwise(col("fileTimestamp"))
    } else col("fileTimestamp")
    val fields =
      ActionSchemas.commitInfo.fieldNames.filterNot(Set("timestamp", "inCommitTimestamp"))
    infos
      .join(fileTimes, Seq("version"), "right")
      .select(
        col("version") +: (ts / 1000).cast("timestamp").as("timestamp") +:
          fields.toSeq.map(f => col(s"commitInfo.$f").as(f)): _*
      )
      .orderBy(col("version").desc)
  }
}
