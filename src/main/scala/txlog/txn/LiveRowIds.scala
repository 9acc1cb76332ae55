package txlog.txn

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import txlog.Snapshot
import txlog.errors.TxlogErrors
import txlog.replay.FileKeys
import txlog.util.Jobs

/** Row ids a commit takes from the live files of the snapshot it read ("Writer Requirements for Row
  * Tracking"): a recommitted add (a path that is live, e.g. re-added with a new deletion vector or
  * with new statistics) keeps the `baseRowId` and `defaultRowCommitVersion` of the live file, so
  * its rows keep their ids; and `delta.enableRowTracking` may only be set once every live file has
  * both. Each is one join with the live files whose paths the commit names: nothing is brought to
  * the driver but a count.
  */
private[txn] object LiveRowIds {

  /** What a commit takes from a live file. */
  def schema: StructType = new StructType()
    .add("path", StringType)
    .add("baseRowId", LongType)
    .add("defaultRowCommitVersion", LongType)

  private val Key = "_rid_path"
  private val Count = "_rid_n"
  private val Base = "_rid_base"
  private val Version = "_rid_version"

  /** `adds` (shaped as add actions) with the row ids of their live file in `live` (a snapshot's
    * `allFiles`) where they name none; a path live more than once keeps nothing (its adds get fresh
    * ids, as new files do).
    */
  def kept(adds: DataFrame, live: DataFrame, root: String): DataFrame = {
    val keyed = adds.withColumn(Key, FileKeys.pathKey(col("path"), root))
    val fromLive = FileActionLines
      .shaped(live, schema)
      .withColumn(Key, FileKeys.pathKey(col("path"), root))
      .join(keyed.where(col("baseRowId").isNull).select(Key).distinct(), Seq(Key), "left_semi")
      .groupBy(Key)
      .agg(
        count(lit(1)).as(Count),
        first(col("baseRowId")).as(Base),
        first(col("defaultRowCommitVersion")).as(Version)
      )
      .where(col(Count) === 1)
    val taken = col("baseRowId").isNull && col(Base).isNotNull
    val columns = adds.columns.toSeq.map {
      case "baseRowId" => when(taken, col(Base)).otherwise(col("baseRowId")).as("baseRowId")
      case "defaultRowCommitVersion" =>
        when(taken, col(Version))
          .otherwise(col("defaultRowCommitVersion"))
          .as("defaultRowCommitVersion")
      case n => col(n)
    }
    keyed.join(fromLive, Seq(Key), "left_outer").select(columns: _*)
  }

  /** INVALID_METADATA unless every file live after the commit has a `baseRowId` and a
    * `defaultRowCommitVersion`, for a commit that sets `delta.enableRowTracking` on a table read as
    * `read` (the latest snapshot the commit goes on): the live files of `read` without them must be
    * removed or added again (`touched`, the commit's adds and removes; a file added again gets
    * fresh ids, a backfill) in this commit or an earlier one (spec, "Row Tracking", enablement).
    */
  def checkEnablement(table: String, read: Snapshot, touched: Seq[DataFrame]): Unit = {
    def key(df: DataFrame): DataFrame = df.select(FileKeys.pathKey(col("path"), table).as(Key))
    val lacking: Column = col("baseRowId").isNull || col("defaultRowCommitVersion").isNull
    val live = read.allFiles
    val missing = key(FileActionLines.shaped(live, schema).where(lacking))
    val left = touched.map(key).reduceOption(_ union _) match {
      case Some(t) => missing.join(t, Seq(Key), "left_anti")
      case None    => missing
    }
    val r = Jobs.named(live.sparkSession, s"check row ids before enabling row tracking on $table") {
      left.agg(count(lit(1)), min(col(Key))).head()
    }
    if (r.getLong(0) > 0) {
      throw TxlogErrors.invalidMetadata(
        table,
        s"delta.enableRowTracking = true needs baseRowId and defaultRowCommitVersion on every " +
          s"live file, and ${r.getLong(0)} live file(s) of version ${read.version} have none " +
          s"(${r.getString(1)} among them); add them again (dataChange = false) in this commit " +
          "or an earlier one, and they get fresh row ids"
      )
    }
  }
}
