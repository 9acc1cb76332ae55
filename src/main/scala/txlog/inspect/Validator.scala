package txlog.inspect

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.col
import org.apache.spark.storage.StorageLevel

import txlog.{Snapshot, TxlogException}
import txlog.log.{LogListing, LogSegment, TablePath}
import txlog.replay.SnapshotLoader
import txlog.util.Jobs

/** The whole-history audit behind `DeltaLog.validate()`: every rule of [[Rules]], run step by step
  * as named Spark jobs, findings gathered into one DataFrame (version, file, rule, severity,
  * detail) sorted by version.
  */
private[txlog] object Validator {

  /** Errors that are not findings: the table cannot be audited at all (refused or unreachable). */
  val Refusals: Set[String] = Set(
    "UNSUPPORTED_READER_VERSION",
    "UNSUPPORTED_READER_FEATURES",
    "LOG_READ_FAILED",
    "DELTA_TABLE_NOT_FOUND"
  )

  /** Runs every rule on the table; `progress` is told each step as it starts. The result is
    * persisted (the distributed rules have run when this returns); `unpersist()` releases it.
    */
  def run(
      spark: SparkSession,
      table: TablePath,
      progress: String => Unit = _ => ()
  ): DataFrame = {
    def step[T](name: String)(body: => T): T = {
      progress(name)
      Jobs.named(spark, s"validate ${table.root}: $name")(body)
    }
    val listing = step("list the log")(LogListing.list(table))
    def load(v: Long): Snapshot =
      SnapshotLoader.load(spark, listing, LogSegment.build(listing, Some(v)))
    val latest: Either[TxlogException, Snapshot] = step("replay the latest version") {
      try Right(load(listing.latestVersion))
      catch { case e: TxlogException if !Refusals(e.errorClass) => Left(e) }
    }
    val onListing = ListingRules.contiguity(listing) ++ ListingRules.lastCheckpoint(listing) ++
      latest.left.toSeq.map(e =>
        Finding(
          Some(listing.latestVersion),
          e.file,
          Rules.SnapshotUnreadable,
          Finding.Error,
          e.getMessage
        )
      )
    val crcs = step("check version checksums")(StateRules.checksums(listing, load))
    val cps = step("check checkpoints")(StateRules.checkpoints(spark, listing))
    val compactions =
      step("check log compactions")(CompactionRules.findings(spark, listing))
    val ictFrom = latest.toOption.collect {
      case s if s.config.inCommitTimestamps =>
        s.config.inCommitTimestampEnablement.map(_._1).getOrElse(0L)
    }
    val commits = CommitRules.findings(CommitRules.lines(spark, listing), table.root, ictFrom)
    val files = latest.toOption.map(FileRules.findings(spark, _))
    val all = (Seq(Finding.toDF(spark, onListing ++ crcs ++ cps ++ compactions), commits) ++ files)
      .reduce(_ unionByName _)
      .orderBy(col("version").asc_nulls_first, col("rule"), col("file"))
      .persist(StorageLevel.MEMORY_AND_DISK)
    step("check commits, data files and deletion vectors")(all.count())
    all
  }
}
