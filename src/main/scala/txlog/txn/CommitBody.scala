package txlog.txn

import java.nio.charset.StandardCharsets
import java.util.UUID

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation
import org.apache.spark.sql.functions._

import txlog.config.TxlogConf
import txlog.errors.TxlogErrors
import txlog.checkpoint.CheckpointStaging
import txlog.checksum.{DeletedRecordCounts, FileAggregates, FileSizeHistogram}
import txlog.log.TablePath
import txlog.util.Jobs

/** The file-action lines of a commit, checked and sized by one Spark job, then either held on the
  * driver (`lines`, when they fit `spark.txlog.commit.maxDriverBytes`) or written by a Spark job
  * into a hidden staging directory of `_delta_log` (`parts`, in order). [[delete]] removes the
  * staging directory. `files` is what the file actions change in the version checksum.
  */
private[txlog] final case class CommitBody(
    count: Long,
    bytes: Long,
    lines: Option[Array[String]],
    staging: Option[Path],
    parts: Seq[Path],
    files: CommitFileDelta
) {
  def delete(table: TablePath): Unit =
    staging.foreach(d => txlog.log.LogWrites.deleteQuietly(table.fs, d))
}

private[txlog] object CommitBody {

  val empty: CommitBody =
    CommitBody(0, 0, Some(Array.empty), None, Seq.empty, CommitFileDelta.empty)

  def maxDriverBytes(spark: SparkSession): Long =
    TxlogConf.CommitMaxDriverBytes.get(spark)

  /** Commits of at most this many file actions (within `spark.txlog.commit.maxDriverBytes`) are
    * checked and tallied on the driver: an OPTIMIZE of 20,000 small files or an overwrite of a
    * table of tens of thousands of files commits without a staging job.
    */
  val DriverActions = 50000

  /** Checks `pieces` (DataFrames of [[FileActionLines]] rows, written in this order) and builds the
    * body: INVALID_COMMIT_ACTIONS, before anything is written, for an action missing a required
    * field or breaking [[samePath]], and a tally of what the adds and removes change in the version
    * checksum ([[CommitFileDelta]]). A commit of at most [[DriverActions]] file actions within
    * `spark.txlog.commit.maxDriverBytes` is read by one job (none when its rows are already on the
    * driver) and checked there; a larger one by [[distributed]], after reading at most
    * [[DriverActions]] + 1 of its rows to find out.
    */
  def build(spark: SparkSession, table: TablePath, pieces: Seq[DataFrame]): CommitBody =
    if (pieces.isEmpty) empty
    else {
      val lines = pieces.reduce(_ unionByName _)
      val head = Jobs.named(spark, s"read the commit actions for ${table.root}") {
        localHead(pieces).getOrElse(lines.take(DriverActions + 1).toSeq)
      }
      val bytes = head.iterator.map(r => lineBytes(r.getAs[String]("line"))).sum
      if (head.length <= DriverActions && bytes <= maxDriverBytes(spark)) onDriver(table, head)
      else distributed(spark, table, lines)
    }

  /** The first [[DriverActions]] + 1 lines of `pieces` when each is rows on the driver once
    * optimized (projections of a local relation, as a small commit's staged inputs are: a DELETE's
    * touched files, say): taken piece by piece in the first piece's column order, which runs no
    * Spark job, where the union of them would run one per piece. None otherwise.
    */
  private def localHead(pieces: Seq[DataFrame]): Option[Seq[Row]] = {
    val columns = pieces.head.columns.toSeq.map(c => col(s"`${c.replace("`", "``")}`"))
    val ordered = pieces.map(_.select(columns: _*))
    if (!ordered.forall(_.queryExecution.optimizedPlan.isInstanceOf[LocalRelation])) None
    else {
      val rows = Vector.newBuilder[Row]
      var left = DriverActions + 1
      ordered.foreach { piece =>
        if (left > 0) {
          val taken = piece.take(left)
          rows ++= taken
          left -= taken.length
        }
      }
      Some(rows.result())
    }
  }

  /** [[build]] of lines already computed on the driver (`rows`, as [[FileActionLines]] gives them:
    * [[LocalLines]]): checked there when they fit the driver budget, else by `pieces` (the same
    * lines as DataFrames) as [[build]] does.
    */
  def fromRows(
      spark: SparkSession,
      table: TablePath,
      rows: Seq[Row],
      pieces: => Seq[DataFrame]
  ): CommitBody = {
    val bytes = rows.iterator.map(r => lineBytes(r.getAs[String]("line"))).sum
    if (rows.length <= DriverActions && bytes <= maxDriverBytes(spark)) onDriver(table, rows)
    else build(spark, table, pieces)
  }

  private def lineBytes(line: String): Long =
    if (line == null) 1L else line.getBytes(StandardCharsets.UTF_8).length + 1L

  /** The lesser of two problems, so that the one reported does not depend on row order. */
  private def least(a: String, b: String): String = if (a.compareTo(b) <= 0) a else b

  /** The spec's rule for the file actions of one commit ("Add File and Remove File"), as
    * delta-spark's duplicate-action check applies it: at most one add and one remove per path,
    * whatever their deletion vectors, and never an add and a remove of the same (path, dvId). Takes
    * (kind, path, dvId) of the adds and removes; returns one problem per path that breaks it,
    * worded as [[pathProblem]] words it.
    */
  private[txn] def samePath(actions: Seq[(String, String, String)]): Iterable[String] =
    actions.groupBy(_._2).flatMap { case (path, same) =>
      val adds = same.filter(_._1 == "add").map(_._3)
      val removes = same.filter(_._1 == "remove").map(_._3)
      if (adds.size > 1) Some(s"add of the same path twice: $path")
      else if (removes.size > 1) Some(s"remove of the same path twice: $path")
      else if (adds.exists(removes.contains)) Some(s"add and remove of the same file: $path")
      else None
    }

  /** [[samePath]] as one Spark job over the commit's lines: the least problem, or null. */
  private def pathProblem(lines: DataFrame): Option[String] = {
    def of(kind: String) = when(col("kind") === kind, col("dvId"))
    val perPath = lines
      .where(col("kind").isin("add", "remove") && col("path").isNotNull)
      .groupBy("path")
      .agg(
        count(of("add")).as("adds"),
        count(of("remove")).as("removes"),
        collect_set(of("add")).as("addDvs"),
        collect_set(of("remove")).as("removeDvs")
      )
    val problem = when(col("adds") > 1, concat(lit("add of the same path twice: "), col("path")))
      .when(col("removes") > 1, concat(lit("remove of the same path twice: "), col("path")))
      .when(
        size(array_intersect(col("addDvs"), col("removeDvs"))) > 0,
        concat(lit("add and remove of the same file: "), col("path"))
      )
    Option(perPath.agg(min(problem)).head().getString(0))
  }

  /** The checks and tallies of [[distributed]], over rows already on the driver. */
  private def onDriver(table: TablePath, rows: Seq[Row]): CommitBody = {
    def str(r: Row, f: String) = Option(r.getAs[String](f))
    rows.flatMap(str(_, "problem")).reduceOption(least).foreach { p =>
      throw TxlogErrors.invalidCommitActions(table.root, p)
    }
    val fileActions = rows.flatMap { r =>
      val kind = r.getAs[String]("kind")
      str(r, "path").filter(_ => kind == "add" || kind == "remove").map { path =>
        (kind, path, r.getAs[String]("dvId"))
      }
    }
    samePath(fileActions).reduceOption(least).foreach { p =>
      throw TxlogErrors.invalidCommitActions(table.root, p)
    }
    val byKey =
      rows.groupBy(r => (r.getAs[String]("kind"), str(r, "path"), r.getAs[String]("dvId")))
    def tally(kind: String): FileTally = byKey.iterator
      .collect { case ((`kind`, _, _), same) =>
        val first = same.head
        FileTally.of(
          Option(first.getAs[Any]("size")).map(_.asInstanceOf[Long]),
          same.flatMap(r => Option(r.getAs[Any]("dataChange"))).map(_ == true).reduceOption(_ && _),
          Option(first.getAs[Any]("dvCardinality")).map(_.asInstanceOf[Long])
        )
      }
      .foldLeft(FileTally.empty)(_ + _)
    val lines = rows.map(_.getAs[String]("line")).toArray
    val bytes = lines.iterator.map(lineBytes).sum
    if (lines.isEmpty) empty
    else {
      val delta = CommitFileDelta(tally("add"), tally("remove"))
      CommitBody(lines.length, bytes, Some(lines), None, Seq.empty, delta)
    }
  }

  /** [[build]] by Spark jobs. The lines are evaluated once, by executors, into a hidden staging
    * directory of `_delta_log` (`checked/`, parquet): every check and what is committed read those
    * files. The staged inputs are already fixed ([[CommitInputs]]), but the lines join them with
    * the live files (removes matched, recommitted files' row ids) and number new rows: three jobs
    * over the lines would do that three times, where one write and three reads of parquet do it
    * once. One job checks and tallies (its result holds one row per kind, size bin and deleted
    * records bin that has files: at most 3 x 95 x 10 rows, whatever the commit's size), one checks
    * the paths ([[samePath]]); then the lines are collected, or written as text beside the checked
    * ones past the driver byte budget.
    */
  private def distributed(spark: SparkSession, table: TablePath, input: DataFrame): CommitBody = {
    val dir = new Path(table.logDir, s".txlog-commit-${UUID.randomUUID()}")
    var keep = false
    try {
      val checked = new Path(dir, "checked")
      val staged = Jobs.named(spark, s"stage the commit actions for ${table.root}") {
        CheckpointStaging.write(table, input, checked, "parquet")
      }
      val lines = spark.read.options(table.readOptions).parquet(checked.toString)
      // the checks group by path: partitions sized by the commit, shuffled by path once per check,
      // without the lines themselves (their lengths suffice)
      val width = CommitShuffleWidth.of(spark, staged.map(_.status.getLen).sum)
      val byPath = lines
        .select(
          col("kind"),
          col("path"),
          col("dvId"),
          (octet_length(col("line")) + 1).as("lineBytes"),
          col("problem"),
          col("size"),
          col("dvCardinality"),
          col("dataChange")
        )
        .repartition(width, col("path"))
      val keyed = byPath
        .groupBy("kind", "path", "dvId")
        .agg(
          count(lit(1)).as("n"),
          sum(col("lineBytes")).as("bytes"),
          min(col("problem")).as("problem"),
          first(col("size")).as("size"),
          first(col("dvCardinality")).as("dvCardinality"),
          min(col("dataChange").cast("int")).as("dataChange")
        )
      val size = col("size")
      val cardinality = col("dvCardinality")
      val rows = Jobs.named(spark, s"check the commit actions for ${table.root}") {
        keyed
          .groupBy(
            col("kind"),
            FileAggregates.binOf(size, FileSizeHistogram.DefaultBoundaries).as("sizeBin"),
            FileAggregates
              .binOf(coalesce(cardinality, lit(0L)), DeletedRecordCounts.LowerBounds)
              .as("deletedBin")
          )
          .agg(
            sum(col("n")).as("n"),
            sum(col("bytes")).as("bytes"),
            min(col("problem")).as("problem"),
            count(lit(1)).as("files"),
            coalesce(sum(size), lit(0L)).as("fileBytes"),
            count(when(size.isNull, 1)).as("withoutSize"),
            count(when(col("dataChange") === 0, 1)).as("withoutDataChange"),
            count(cardinality).as("deletionVectors"),
            coalesce(sum(cardinality), lit(0L)).as("deletedRecords")
          )
          .select(
            "n",
            "bytes",
            "problem",
            "kind",
            "sizeBin",
            "deletedBin",
            "files",
            "fileBytes",
            "withoutSize",
            "withoutDataChange",
            "deletionVectors",
            "deletedRecords"
          )
          .collect()
          .toSeq
      }
      rows.iterator.flatMap(r => Option(r.getString(2))).reduceOption(least).foreach { p =>
        throw TxlogErrors.invalidCommitActions(table.root, p)
      }
      Jobs
        .named(spark, s"check the commit's paths for ${table.root}")(pathProblem(byPath))
        .foreach(p => throw TxlogErrors.invalidCommitActions(table.root, p))
      val n = rows.map(_.getLong(0)).sum
      val bytes = rows.map(_.getLong(1)).sum
      val delta = CommitFileDelta.fromRows(rows, at = 3)
      if (n == 0) empty
      else if (bytes <= maxDriverBytes(spark)) {
        val collected = Jobs.named(spark, s"collect the commit actions for ${table.root}") {
          lines.select("line").collect().map(_.getString(0))
        }
        CommitBody(n, bytes, Some(collected), None, Seq.empty, delta)
      } else {
        val parts = Jobs.named(spark, s"write the commit actions for ${table.root}") {
          CheckpointStaging
            .write(table, lines.select("line"), new Path(dir, "text"), "text")
            .map(_.status.getPath)
        }
        keep = true
        CommitBody(n, bytes, None, Some(dir), parts, delta)
      }
    } finally if (!keep) txlog.log.LogWrites.deleteQuietly(table.fs, dir)
  }
}
