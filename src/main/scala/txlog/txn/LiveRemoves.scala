package txlog.txn

import org.apache.spark.sql.{Column, DataFrame, Row}
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import txlog.protocol.ActionSchemas
import txlog.replay.FileKeys
import txlog.util.Jobs

/** Staged removes matched, by path, to the live files of the snapshot the transaction read.
  *
  * Log replay keys a file by (path, deletion vector), so a remove that leaves out the deletion
  * vector of a file that has one removes nothing, and the file stays live beside whatever rewrote
  * it: duplicate rows. delta-spark's writers take a remove from the live `AddFile` itself. Here a
  * remove without a deletion vector takes the live file's; a remove whose path is not live, is live
  * more than once, or whose deletion vector is not the live one, gets a [[Problem]] (refused with
  * INVALID_COMMIT_ACTIONS before anything is written). A remove also takes the live file's
  * `baseRowId` and `defaultRowCommitVersion` where it names none (spec, "Writer Requirements for
  * Row Tracking": removes carry those of the last add of their path).
  *
  * One join with the live files whose paths are removed: nothing is brought to the driver, unless
  * the removes are rows on the driver already (a small commit's), where one job reads their live
  * files' entries and the rest is worked out there.
  */
private[txn] object LiveRemoves {

  /** The column naming why a remove cannot be committed (null when it can). */
  val Problem = "_liveProblem"

  private val Key = "_rk_path"
  private val Count = "_live_n"
  private val LiveDv = "_live_dv"
  private val LiveBase = "_live_base"
  private val LiveVersion = "_live_version"
  private val dvType = ActionSchemas.remove("deletionVector").dataType

  /** `removes` (any columns, `path` among them) shaped as remove actions, each with the deletion
    * vector of its live file in `live` (a snapshot's `allFiles`) where it names none, and
    * [[Problem]]. `version` is the live files' version, for the problems' text. `width`: both sides
    * hash-partitioned by path into that many partitions first (one shuffle each, which the join and
    * aggregation by path then reuse), for removes too many for the session's shuffle partitions
    * ([[CommitShuffleWidth]]).
    */
  def matched(
      removes: DataFrame,
      live: DataFrame,
      root: String,
      version: Long,
      width: Option[Int] = None
  ): DataFrame = {
    def byKey(df: DataFrame) = width.fold(df)(w => df.repartition(w, col(Key)))
    val staged = FileActionLines
      .shaped(removes, ActionSchemas.remove)
      .withColumn(Key, FileKeys.pathKey(col("path"), root))
    val liveShaped = FileActionLines
      .shaped(live, LiveRowIds.schema.add("deletionVector", dvType))
      .withColumn(Key, FileKeys.pathKey(col("path"), root))
    val joined = onDriver(staged, liveShaped).getOrElse {
      val touched = byKey(liveShaped)
        .join(byKey(staged).select(Key).distinct(), Seq(Key), "left_semi")
        .groupBy(Key)
        .agg(
          count(lit(1)).as(Count),
          first(col("deletionVector")).as(LiveDv),
          first(col("baseRowId")).as(LiveBase),
          first(col("defaultRowCommitVersion")).as(LiveVersion)
        )
      byKey(staged).join(touched, Seq(Key), "left_outer")
    }
    checked(joined, version)
  }

  /** The join of [[matched]] worked out on the driver when the removes are rows there already (a
    * local relation of at most [[CommitBody.DriverActions]] rows, as [[CommitInputs]] keeps a small
    * commit's): one job reads the live entries of their paths, and the result is a local relation
    * again, so the commit's body reads it without a job. None otherwise.
    */
  private def onDriver(staged: DataFrame, live: DataFrame): Option[DataFrame] =
    if (!staged.queryExecution.optimizedPlan.isInstanceOf[LocalRelation]) None
    else {
      val rows = staged.collect() // a local relation: no job
      if (rows.length > CommitBody.DriverActions) None
      else {
        val keys = rows.map(_.getAs[String](Key)).distinct
        val spark = staged.sparkSession
        val entries =
          if (keys.isEmpty) Array.empty[Row]
          else {
            // a broadcast semi join, not `isin`: an OPTIMIZE's 20,000 paths as an `In`'s
            // literals were walked by every analyzer and optimizer rule (W19: 36.5 s, now 22.7 s)
            val wanted = spark.createDataFrame(
              java.util.Arrays.asList(keys.map(Row(_)): _*),
              new StructType().add(Key, StringType, nullable = false)
            )
            Jobs.named(spark, "read the live files the commit removes") {
              live
                .join(broadcast(wanted), Seq(Key), "left_semi")
                .select(
                  col(Key),
                  col("deletionVector"),
                  col("baseRowId"),
                  col("defaultRowCommitVersion")
                )
                .collect()
            }
          }
        val byKey = entries.groupBy(_.getString(0))
        val out = rows.map { r =>
          val extra = byKey.get(r.getAs[String](Key)) match {
            case None => Seq(null, null, null, null)
            case Some(l) =>
              Seq(l.length.toLong, l.head.get(1), l.head.get(2), l.head.get(3))
          }
          Row.fromSeq(r.toSeq ++ extra)
        }
        val schema = staged.schema
          .add(Count, LongType)
          .add(LiveDv, dvType)
          .add(LiveBase, LongType)
          .add(LiveVersion, LongType)
        Some(spark.createDataFrame(java.util.Arrays.asList(out: _*), schema))
      }
    }

  /** The removes of `joined` (staged removes beside their live files' count and fields), with the
    * live fields they lack and [[Problem]].
    */
  private def checked(joined: DataFrame, version: Long): DataFrame = {
    val given = col("deletionVector")
    val problem = when(
      col(Count).isNull,
      concat(lit(s"remove of a file that is not live in version $version: "), col("path"))
    ).when(
      col(Count) > 1,
      concat(
        lit(s"remove of a path live more than once in version $version: "),
        col("path")
      )
    ).when(
      given.isNotNull && !dvKey(given).eqNullSafe(dvKey(col(LiveDv))),
      concat(
        lit("remove names a deletion vector the live file does not have in version "),
        lit(s"$version: "),
        col("path"),
        lit(" "),
        dvKey(given),
        lit(" (live: "),
        coalesce(dvKey(col(LiveDv)), lit("none")),
        lit(")")
      )
    )
    val columns = ActionSchemas.remove.fieldNames.toSeq.map {
      case "deletionVector" => coalesce(given, col(LiveDv)).as("deletionVector")
      case "baseRowId"      => coalesce(col("baseRowId"), col(LiveBase)).as("baseRowId")
      case "defaultRowCommitVersion" =>
        coalesce(col("defaultRowCommitVersion"), col(LiveVersion)).as("defaultRowCommitVersion")
      case n => col(n)
    }
    joined.select(columns :+ problem.as(Problem): _*)
  }

  private def dvKey(dv: Column): Column = FileKeys.dvId(dv)
}
