package txlog.streaming

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{ArrayType, LongType, MapType, StringType, StructType}

import txlog.Metadata
import txlog.errors.TxlogErrors
import txlog.log.TablePath
import txlog.protocol.{ActionSchemas, CommitFile}
import txlog.replay.{LogActions, LogLineReader}
import txlog.util.Jobs

/** What a stream reads of some commits, from those commit files alone (never a replay): per
  * version, whether it removes or adds data and the schema it sets ([[CommitActions.Summary]]); and
  * the adds with dataChange = true after a position, as [[StreamFiles]] rows (the index: the add's
  * line in its commit file). A line that is not a valid action is MALFORMED_LOG_FILE.
  *
  * {{{
  * val read = CommitActions.read(spark, table, commits)
  * read.summaries.foreach(s => ...); read.adds(md, rowTracking, (3L, -1L), Some(1000))
  * }}}
  */
private[txlog] final class CommitActions private (parsed: DataFrame, root: String) {

  /** One summary per commit read, in version order. */
  lazy val summaries: Seq[CommitActions.Summary] = {
    val rows = Jobs.named(parsed.sparkSession, s"summarize commits of $root for a stream") {
      parsed
        .groupBy(col("version"))
        .agg(
          count(when(col("add.dataChange"), 1)).as("adds"),
          count(when(col("remove.dataChange"), 1)).as("removes"),
          min(when(col("remove.dataChange"), col("remove.path"))).as("removed"),
          first(col("metaData"), ignoreNulls = true).as("metaData"),
          first(col("commitInfo.operation"), ignoreNulls = true).as("operation"),
          first(
            when(
              col(LogActions.CorruptColumn).isNotNull,
              struct(col("file"), col(LogActions.CorruptColumn))
            ),
            ignoreNulls = true
          ).as("corrupt")
        )
        .orderBy(col("version"))
        .collect()
        .toSeq
    }
    rows.foreach { r =>
      Option(r.getStruct(6)).foreach { c =>
        throw TxlogErrors.malformedLogFile(
          c.getString(0),
          r.getLong(0),
          s"A line is not a valid action: ${c.getString(1).take(200)}"
        )
      }
    }
    rows.map { r =>
      val md = Option(r.getStruct(4)).map { m =>
        CommitActions.MetadataChange(m.getString(0), m.getString(1), m.getSeq[String](2))
      }
      CommitActions.Summary(
        r.getLong(0),
        r.getLong(1),
        r.getLong(2),
        Option(r.getString(3)),
        md,
        Option(r.getString(5))
      )
    }
  }

  /** The adds with dataChange = true after (`version`, `index`) and up to `upTo`, of the versions
    * `versions` keeps, in order, at most `limit` of them.
    */
  def adds(
      md: Metadata,
      rowTracking: Boolean,
      after: (Long, Long),
      upTo: Option[(Long, Long)],
      versions: Long => Boolean,
      limit: Option[Int]
  ): Seq[Row] = {
    val kept = summaries.map(_.version).filter(versions)
    if (kept.isEmpty) Nil
    else {
      val (v, i) = after
      val picked = parsed
        .where(col("add.dataChange") && col("version").isin(kept: _*))
        .where(col("version") > v || (col("version") === v && col("idx") > i))
        .where(upTo.fold(lit(true)) { case (ev, ei) =>
          col("version") < ev || (col("version") === ev && col("idx") <= ei)
        })
        .select(
          StreamFiles.columns(col("add"), md, rowTracking) ++
            Seq(col("version"), col("idx").cast(LongType).as(StreamFiles.Index)): _*
        )
      val ordered = StreamFiles.ordered(picked)
      Jobs.named(parsed.sparkSession, s"adds of commits of $root for a stream") {
        limit.fold(ordered)(ordered.limit).collect().toSeq
      }
    }
  }
}

private[txlog] object CommitActions {

  /** How many commits a stream reads at once. */
  val Window = 1000

  /** A metaData action of a commit: the table id, its schema and partition columns. */
  final case class MetadataChange(id: String, schemaString: String, partitionColumns: Seq[String])

  /** What one commit does, as a stream sees it: how many adds and removes with dataChange, the path
    * of a removed file, the metadata it sets, its operation (commitInfo).
    */
  final case class Summary(
      version: Long,
      adds: Long,
      removes: Long,
      removed: Option[String],
      metadata: Option[MetadataChange],
      operation: Option[String]
  )

  private val stringMap = MapType(StringType, StringType, valueContainsNull = true)

  private val Schema = new StructType()
    .add("add", ActionSchemas.add)
    .add("remove", ActionSchemas.remove)
    .add(
      "metaData",
      new StructType()
        .add("id", StringType)
        .add("schemaString", StringType)
        .add("partitionColumns", ArrayType(StringType))
    )
    .add("commitInfo", new StructType().add("operation", StringType))

  /** The actions of `commits` of `table` (read on the driver when small, as replay reads a tail).
    */
  def read(spark: SparkSession, table: TablePath, commits: Seq[CommitFile]): CommitActions = {
    val lines = LogLineReader.read(spark, table, commits.map(c => c.version -> c.file))
    new CommitActions(LogActions.parseLines(lines, Schema), table.root)
  }
}
