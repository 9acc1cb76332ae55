package txlog.streaming

import org.apache.spark.sql.{Column, DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{ArrayType, LongType, MapType, StringType, StructType}

import txlog.{Metadata, Protocol}
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
  * Commits whose files fit the driver's log read budget (`spark.txlog.replay.maxLocalReadBytes`,
  * [[CommitActions.windows]] makes windows of them) are read and parsed on the driver without a
  * Spark job, their file actions kept there; a larger commit is read by tasks, and only its summary
  * and the adds a batch takes reach the driver.
  *
  * {{{
  * val read = CommitActions.read(spark, table, commits, md, rowTracking = false)
  * read.summaries.foreach(s => ...); read.adds((3L, -1L), None, _ => true, Some(1000))
  * }}}
  */
private[txlog] final class CommitActions private (
    parsed: DataFrame,
    root: String,
    fileColumns: Seq[Column],
    onDriver: Boolean
) {
  import CommitActions._

  private val spark = parsed.sparkSession

  /** The actions a stream looks at, one row each: a file's columns ([[StreamFiles]]: the add's, or
    * null), then the kind, the path a remove with dataChange removes, the metadata set, the
    * operation, a corrupt line.
    */
  private def relevant: DataFrame =
    parsed
      .where(
        col("add.dataChange") || col("remove.dataChange") || col("metaData").isNotNull ||
          col("protocol").isNotNull || col("commitInfo").isNotNull ||
          col(LogActions.CorruptColumn).isNotNull
      )
      .select(
        fileColumns ++ Seq(
          col("version"),
          col("idx").cast(LongType).as(StreamFiles.Index),
          when(col("add.dataChange"), "add")
            .when(col("remove.dataChange"), "remove")
            .otherwise("other")
            .as("kind"),
          col("remove.path").as("removed"),
          col("metaData"),
          col("commitInfo.operation").as("operation"),
          when(
            col(LogActions.CorruptColumn).isNotNull,
            struct(col("file"), col(LogActions.CorruptColumn))
          ).as("corrupt"),
          col("protocol")
        ): _*
      )

  /** On the driver: every relevant action (a projection of a local relation: no Spark job). */
  private lazy val local: Seq[Row] = relevant.collect().toSeq

  /** One summary per commit read, in version order. */
  lazy val summaries: Seq[Summary] = {
    val rows =
      if (onDriver) {
        local.groupBy(StreamFiles.version).toSeq.sortBy(_._1).map { case (v, actions) =>
          def first(at: Int) = actions.find(!_.isNullAt(at)).map(_.get(at)).orNull
          Row(
            v,
            actions.count(_.getString(KindAt) == "add").toLong,
            actions.count(_.getString(KindAt) == "remove").toLong,
            actions
              .filter(_.getString(KindAt) == "remove")
              .map(_.getString(RemovedAt))
              .sorted
              .headOption
              .orNull,
            first(MetadataAt),
            first(OperationAt),
            first(CorruptAt),
            first(ProtocolAt)
          )
        }
      } else
        Jobs.named(spark, s"summarize commits of $root for a stream") {
          relevant
            .groupBy(col("version"))
            .agg(
              count(when(col("kind") === "add", 1)).as("adds"),
              count(when(col("kind") === "remove", 1)).as("removes"),
              min(col("removed")).as("removed"),
              first(col("metaData"), ignoreNulls = true).as("metaData"),
              first(col("operation"), ignoreNulls = true).as("operation"),
              first(col("corrupt"), ignoreNulls = true).as("corrupt"),
              first(col("protocol"), ignoreNulls = true).as("protocol")
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
        MetadataChange(
          m.getString(0),
          m.getString(1),
          m.getSeq[String](2),
          Option(m.getMap[String, String](3)).fold(Map.empty[String, String])(_.toMap)
        )
      }
      val protocol = Option(r.getStruct(7)).map { p =>
        def features(i: Int) = Option(p.getSeq[String](i)).map(_.toSet)
        Protocol(p.getInt(0), p.getInt(1), features(2), features(3))
      }
      Summary(
        r.getLong(0),
        r.getLong(1),
        r.getLong(2),
        Option(r.getString(3)),
        md,
        Option(r.getString(5)),
        protocol
      )
    }
  }

  /** The adds with dataChange = true after (`version`, `index`) and up to `upTo`, of the versions
    * `versions` keeps, in order, at most `limit` of them.
    */
  def adds(
      after: (Long, Long),
      upTo: Option[(Long, Long)],
      versions: Long => Boolean,
      limit: Option[Int]
  ): Seq[Row] = {
    val kept = summaries.map(_.version).filter(versions)
    val (v, i) = after
    if (kept.isEmpty) Nil
    else if (onDriver) {
      val keep = kept.toSet
      def inRange(r: Row) = {
        val (rv, ri) = (StreamFiles.version(r), StreamFiles.index(r))
        (rv > v || (rv == v && ri > i)) &&
        upTo.forall { case (ev, ei) => rv < ev || (rv == ev && ri <= ei) }
      }
      val picked = local
        .filter(r => r.getString(KindAt) == "add" && keep(StreamFiles.version(r)) && inRange(r))
        .sortBy(r => (StreamFiles.version(r), StreamFiles.index(r)))
        .map(r => Row.fromSeq(r.toSeq.take(KindAt)))
      limit.fold(picked)(picked.take)
    } else {
      val picked = relevant
        .where(col("kind") === "add" && col("version").isin(kept: _*))
        .where(col("version") > v || (col("version") === v && col(StreamFiles.Index) > i))
        .where(upTo.fold(lit(true)) { case (ev, ei) =>
          col("version") < ev || (col("version") === ev && col(StreamFiles.Index) <= ei)
        })
        .select(relevant.columns.take(KindAt).map(col): _*)
      val ordered = StreamFiles.ordered(picked)
      Jobs.named(spark, s"adds of commits of $root for a stream") {
        limit.fold(ordered)(ordered.limit).collect().toSeq
      }
    }
  }
}

private[txlog] object CommitActions {

  /** How many commits a stream reads at once, at most. */
  val Window = 1000

  // the fields of a relevant action's row after the file's (StreamFiles' layout, 10 fields)
  private val KindAt = 10
  private val RemovedAt = 11
  private val MetadataAt = 12
  private val OperationAt = 13
  private val CorruptAt = 14
  private val ProtocolAt = 15

  /** A metaData action of a commit: the table id, its schema, partition columns and properties. */
  final case class MetadataChange(
      id: String,
      schemaString: String,
      partitionColumns: Seq[String],
      configuration: Map[String, String]
  )

  /** What one commit does, as a stream sees it: how many adds and removes with dataChange, the path
    * of a removed file, the metadata it sets, its operation (commitInfo), its protocol.
    */
  final case class Summary(
      version: Long,
      adds: Long,
      removes: Long,
      removed: Option[String],
      metadata: Option[MetadataChange],
      operation: Option[String],
      protocol: Option[Protocol]
  )

  private val AddFields =
    Set("path", "partitionValues", "size", "modificationTime", "dataChange", "deletionVector") ++
      Set("baseRowId", "defaultRowCommitVersion")

  private val Schema = new StructType()
    .add("add", StructType(ActionSchemas.add.fields.filter(f => AddFields(f.name))))
    .add("remove", new StructType().add("path", StringType).add("dataChange", "boolean"))
    .add(
      "metaData",
      new StructType()
        .add("id", StringType)
        .add("schemaString", StringType)
        .add("partitionColumns", ArrayType(StringType))
        .add("configuration", MapType(StringType, StringType, valueContainsNull = true))
    )
    .add("protocol", ActionSchemas.protocol)
    .add("commitInfo", new StructType().add("operation", StringType))

  /** `commits` in windows a stream reads at once: up to [[Window]] commits whose files together fit
    * the driver's log read budget (a larger commit alone, read by tasks).
    */
  def windows(spark: SparkSession, commits: Seq[CommitFile]): Iterator[Seq[CommitFile]] = {
    val budget = LogLineReader.localReadMaxBytes(spark)
    new Iterator[Seq[CommitFile]] {
      private var rest = commits
      def hasNext: Boolean = rest.nonEmpty
      def next(): Seq[CommitFile] = {
        var bytes = 0L
        val n = rest.iterator
          .take(Window)
          .takeWhile { c => bytes += c.file.size; bytes <= budget }
          .size
          .max(1)
        val (window, after) = rest.splitAt(n)
        rest = after
        window
      }
    }
  }

  /** The actions of `commits` of `table`, the adds' files under `md`. */
  def read(
      spark: SparkSession,
      table: TablePath,
      commits: Seq[CommitFile],
      md: Metadata,
      rowTracking: Boolean
  ): CommitActions = {
    val bytes = commits.map(_.file.size).sum
    val lines = LogLineReader.read(spark, table, commits.map(c => c.version -> c.file))
    new CommitActions(
      LogActions.parseLines(lines, Schema),
      table.root,
      StreamFiles.columns(col("add"), md, rowTracking),
      LogLineReader.readsOnDriver(spark, bytes)
    )
  }
}
