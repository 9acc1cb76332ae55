package txlog.inspect

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import txlog.protocol.ActionSchemas
import txlog.log.LogListing
import txlog.replay.{FileKeys, LogActions, LogLineReader}

/** Rules over the actions of every commit, as Spark jobs (nothing per action reaches the driver):
  * at most one metaData and one protocol per commit, no path added (or removed) twice in one
  * commit, `numRecords` in the stats of adds with a deletion vector, and in-commit timestamps
  * present and increasing where they are enabled.
  */
private[txlog] object CommitRules {

  /** What these rules read of a commit line. */
  private val lineSchema: StructType = new StructType()
    .add(
      "add",
      new StructType()
        .add("path", StringType)
        .add("stats", StringType)
        .add("deletionVector", ActionSchemas.deletionVector)
    )
    .add("remove", new StructType().add("path", StringType))
    .add("protocol", new StructType().add("minReaderVersion", StringType))
    .add("metaData", new StructType().add("id", StringType))
    .add("commitInfo", new StructType().add("inCommitTimestamp", LongType))

  /** The parsed lines of every listed commit (compactions are not commits: not read). */
  def lines(spark: SparkSession, listing: LogListing): DataFrame = LogActions.parseLines(
    LogLineReader.read(spark, listing.table, listing.commits.map(c => c.version -> c.file)),
    lineSchema
  )

  /** The findings of every rule here; `ictFrom` is the first version that must carry an in-commit
    * timestamp (None when they are not enabled).
    */
  def findings(lines: DataFrame, root: String, ictFrom: Option[Long]): DataFrame =
    malformed(lines)
      .unionByName(perCommit(lines))
      .unionByName(duplicates(lines, root))
      .unionByName(missingNumRecords(lines))
      .unionByName(ict(lines, ictFrom))

  private def finding(rule: String, severity: String, file: Column, detail: Column): Seq[Column] =
    Seq(
      col("version").cast(LongType).as("version"),
      file.cast(StringType).as("file"),
      lit(rule).as("rule"),
      lit(severity).as("severity"),
      detail.as("detail")
    )

  private def malformed(lines: DataFrame): DataFrame = lines
    .where(col(LogActions.CorruptColumn).isNotNull)
    .select(
      finding(
        Rules.MalformedCommit,
        Finding.Error,
        col("file"),
        concat(
          lit("Line "),
          (col("idx") + 1).cast(StringType),
          lit(" is not a valid action: "),
          substring(col(LogActions.CorruptColumn), 1, 200)
        )
      ): _*
    )

  /** "There can be at most one metadata action in a given version", and one protocol. */
  private def perCommit(lines: DataFrame): DataFrame = {
    val counts = lines
      .groupBy("version", "file")
      .agg(
        count(col("metaData")).as("metaData"),
        count(col("protocol")).as("protocol")
      )
    def rule(action: String, name: String) = counts
      .where(col(action) > 1)
      .select(
        finding(
          name,
          Finding.Error,
          col("file"),
          concat(lit("The commit has "), col(action).cast(StringType), lit(s" $action actions."))
        ): _*
      )
    rule("metaData", Rules.MultipleMetadata).unionByName(rule("protocol", Rules.MultipleProtocol))
  }

  /** "at most one file action of the same type for any path (regardless of dvId)" per commit. */
  private def duplicates(lines: DataFrame, root: String): DataFrame = {
    def of(kind: String) = lines
      .where(col(kind).isNotNull)
      .select(col("version"), lit(kind).as("kind"), col(s"$kind.path").as("path"))
    of("add")
      .unionByName(of("remove"))
      .withColumn("key", FileKeys.pathKey(col("path"), root))
      .groupBy("version", "kind", "key")
      .agg(count(lit(1)).as("n"), first("path").as("path"))
      .where(col("n") > 1)
      .select(
        finding(
          Rules.DuplicateFileAction,
          Finding.Error,
          col("path"),
          concat(
            lit("The commit has "),
            col("n").cast(StringType),
            lit(" "),
            col("kind"),
            lit(" actions for this path; at most one is allowed.")
          )
        ): _*
      )
  }

  /** "For any logical file where deletionVector is not null, the numRecords statistic must be
    * present".
    */
  private def missingNumRecords(lines: DataFrame): DataFrame = lines
    .where(
      col("add.deletionVector").isNotNull &&
        get_json_object(col("add.stats"), "$.numRecords").isNull
    )
    .select(
      finding(
        Rules.MissingNumRecords,
        Finding.Error,
        col("add.path"),
        lit("The add has a deletion vector but its stats have no numRecords.")
      ): _*
    )

  /** In-commit timestamps: every commit from `ictFrom` on has one, and each is larger than the
    * previous commit's (compared by a join of consecutive versions, not on the driver).
    */
  private def ict(lines: DataFrame, ictFrom: Option[Long]): DataFrame = {
    val perVersion = lines
      .groupBy("version", "file")
      .agg(max(col("commitInfo.inCommitTimestamp")).as("ict"))
    val from = ictFrom.getOrElse(Long.MaxValue)
    val missing = perVersion
      .where(col("version") >= lit(from) && col("ict").isNull)
      .select(
        finding(
          Rules.IctMissing,
          Finding.Error,
          col("file"),
          lit(
            "In-commit timestamps are enabled from version " + from + ", but this commit " +
              "has no commitInfo.inCommitTimestamp."
          )
        ): _*
      )
    val known = perVersion.where(col("ict").isNotNull)
    val prev = known.select(col("version").as("pv"), col("ict").as("pict"))
    val unordered = known
      .join(prev, col("pv") === col("version") - 1)
      .where(col("ict") <= col("pict"))
      .select(
        finding(
          Rules.IctNotMonotonic,
          Finding.Error,
          col("file"),
          concat(
            lit("Its inCommitTimestamp "),
            col("ict").cast(StringType),
            lit(" is not after commit "),
            col("pv").cast(StringType),
            lit("'s, "),
            col("pict").cast(StringType),
            lit(".")
          )
        ): _*
      )
    missing.unionByName(unordered)
  }
}
