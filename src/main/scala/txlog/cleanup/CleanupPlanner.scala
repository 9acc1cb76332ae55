package txlog.cleanup

import java.net.URI

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types.StructType

import txlog.protocol.ActionSchemas
import txlog.log._
import txlog.protocol._
import txlog.replay.LogActions
import txlog.timetravel.CommitTimeline

/** Plans the spec's "Metadata Cleanup" without changing anything:
  *   1. cutOffTimestamp is midnight UTC of (now - retention); cutoffCommit the newest commit whose
  *      (monotonized, file-time) timestamp is at or before it; 2. cutOffCheckpoint the newest
  *      complete checkpoint at or below cutoffCommit; 3. commits, checkpoints (every kind and part)
  *      and checksums below cutOffCheckpoint, and log compactions starting at or below it, are
  *      candidates; 4. and 5. sidecars no kept checkpoint references, last modified before one day
  *      before midnight UTC of now, are candidates.
  * Without a cutoffCommit or a cutOffCheckpoint none of those is a candidate, nor when `verify`
  * finds the cutOffCheckpoint cannot be read. Whatever the cutoffs, the temporary files and staging
  * directories txlog's writers leave in `_delta_log` when they die (`.<name>.<uuid>.tmp`,
  * `.txlog-staging-`, `.txlog-commit-` and `.txlog-input-<uuid>`), last modified before the
  * sidecars' threshold, are candidates too: readers never list them, and nothing else removes them.
  */
private[txlog] object CleanupPlanner {
  val DayMillis: Long = 24L * 3600 * 1000

  def midnightUtc(millis: Long): Long = Math.floorDiv(millis, DayMillis) * DayMillis

  def plan(
      spark: SparkSession,
      listing: LogListing,
      retentionMillis: Long,
      now: Long,
      verify: Long => Option[String] = _ => None
  ): CleanupPlan = {
    val cutOffTimestamp = midnightUtc(now - retentionMillis)
    val cutoffCommit = CommitTimeline(listing).latestAtOrBefore(cutOffTimestamp, 0L, Long.MaxValue)
    val cutOffCheckpoint =
      cutoffCommit.flatMap(c => listing.checkpoints.filter(_.version <= c).lastOption)
    val leftovers = leftoverCandidates(listing.table, now)
    // No log file may go: only the leftovers, and why.
    def blocked(commit: Option[Long], why: String) =
      CleanupPlan(cutOffTimestamp, commit, None, leftovers, Some(why))
    (cutoffCommit, cutOffCheckpoint) match {
      case (None, _) =>
        blocked(
          None,
          s"no commit is at or before the cutoff " +
            s"${java.time.Instant.ofEpochMilli(cutOffTimestamp)}: " +
            "every commit is within the retention period"
        )
      case (Some(c), None) =>
        blocked(
          Some(c),
          s"no complete checkpoint is at or below the cutoff commit $c, so every older " +
            "file is still needed to reconstruct it"
        )
      case (Some(c), Some(cp)) =>
        verify(cp.version) match {
          case Some(why) =>
            blocked(
              Some(c),
              s"the cutoff checkpoint at version ${cp.version} cannot be read ($why), so " +
                "every older file is still needed: nothing older is deleted (repair can " +
                "rewrite it)"
            )
          case None =>
            val logFiles = listLogFiles(listing.table).sortBy(_.version)
            val expired = logFiles.flatMap(f => logCandidate(f, cp.version))
            val kept = listing.checkpoints.filter(_.version >= cp.version)
            val sidecars = sidecarCandidates(spark, listing.table, kept, now)
            CleanupPlan(
              cutOffTimestamp,
              Some(c),
              Some(cp.version),
              expired.sortBy(e => (e.version, order(e.kind), e.path)) ++ sidecars ++ leftovers,
              None
            )
        }
    }
  }

  /** The plan when `delta.enableExpiredLogCleanup` is false: no log file, only leftovers. */
  def disabled(listing: LogListing, retentionMillis: Long, now: Long): CleanupPlan =
    CleanupPlan(
      midnightUtc(now - retentionMillis),
      None,
      None,
      leftoverCandidates(listing.table, now),
      Some(
        "delta.enableExpiredLogCleanup is false: the table keeps its expired log files " +
          "(set it to true to clean them up)"
      )
    )

  /** Within a version: checkpoints and checksums go before the commit itself. */
  private def order(kind: String): Int = kind match {
    case CleanupCandidate.Checkpoint => 0
    case CleanupCandidate.Checksum   => 1
    case CleanupCandidate.Compaction => 2
    case _                           => 3
  }

  /** Every file of `_delta_log` the spec names, incomplete checkpoints included. */
  private def listLogFiles(table: TablePath): Seq[LogFile] =
    table.fs
      .listStatus(table.logDir)
      .toSeq
      .filter(_.isFile)
      .flatMap(s => FileNames.parse(FileInfo(s)))

  private def logCandidate(f: LogFile, cutOff: Long): Option[CleanupCandidate] = {
    def c(kind: String, v: Long) =
      CleanupCandidate(f.file.path, kind, v, f.file.size, f.file.modificationTime)
    f match {
      case x: CommitFile if x.version < cutOff => Some(c(CleanupCandidate.Commit, x.version))
      case x: CheckpointFile if x.version < cutOff =>
        Some(c(CleanupCandidate.Checkpoint, x.version))
      case x: VersionChecksumFile if x.version < cutOff =>
        Some(c(CleanupCandidate.Checksum, x.version))
      case x: CompactionFile if x.start <= cutOff =>
        Some(c(CleanupCandidate.Compaction, x.start))
      case _ => None
    }
  }

  /** txlog's temporary files (`.<name>.<uuid>.tmp`, [[txlog.storage.HiddenTempFiles]]) and
    * checkpoint staging directories (`.txlog-staging-`, `.txlog-commit-`, `.txlog-input-<uuid>`) in
    * `_delta_log`, last modified before one day before midnight UTC of `now`: a live writer's are
    * younger.
    */
  private def leftoverCandidates(table: TablePath, now: Long): Seq[CleanupCandidate] = {
    val threshold = midnightUtc(now) - DayMillis
    table.fs
      .listStatus(table.logDir)
      .toSeq
      .filter(s =>
        Leftover.pattern.matcher(s.getPath.getName).matches() && s.getModificationTime < threshold
      )
      .sortBy(s => (s.getModificationTime, s.getPath.getName))
      .map(s =>
        CleanupCandidate(
          s.getPath.toString,
          CleanupCandidate.Leftover,
          -1L,
          if (s.isFile) s.getLen else 0L,
          s.getModificationTime
        )
      )
  }

  private val Uuid = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
  private val Leftover = s"""\\.(.+\\.$Uuid\\.tmp|txlog-(staging|commit|input)-$Uuid)""".r

  /** Sidecars in `_delta_log/_sidecars` that none of `kept` references and that were last modified
    * before one day before midnight UTC of `now` (so in-progress checkpoints keep theirs). Sidecars
    * are compared by file name: they all live in that one directory.
    */
  private def sidecarCandidates(
      spark: SparkSession,
      table: TablePath,
      kept: Seq[CheckpointInstance],
      now: Long
  ): Seq[CleanupCandidate] = {
    val fs = table.fs
    val dir = table.sidecarDir
    val files: Seq[FileStatus] =
      if (!fs.exists(dir)) Nil
      else fs.listStatus(dir).toSeq.filter(s => s.isFile && !s.getPath.getName.startsWith("."))
    if (files.isEmpty) return Nil
    val referenced = referencedSidecars(spark, table, kept)
    val threshold = midnightUtc(now) - DayMillis
    files
      .filter(s =>
        !referenced.contains(s.getPath.getName) &&
          s.getModificationTime < threshold
      )
      .sortBy(s => (s.getModificationTime, s.getPath.getName))
      .map(s =>
        CleanupCandidate(
          s.getPath.toString,
          CleanupCandidate.Sidecar,
          -1L,
          s.getLen,
          s.getModificationTime
        )
      )
  }

  /** File names of the sidecars the sidecar actions of `checkpoints` name (collected: one per
    * sidecar file, never per data file).
    */
  private def referencedSidecars(
      spark: SparkSession,
      table: TablePath,
      checkpoints: Seq[CheckpointInstance]
  ): Set[String] = {
    // Multi-part checkpoints are V1: they have no sidecars.
    val v2able = checkpoints.filter(_.parts.isEmpty)
    val schema = new StructType().add("sidecar", ActionSchemas.sidecar)
    v2able.flatMap { cp =>
      LogActions
        .checkpoint(spark, table, cp, schema)
        .where(col("sidecar.path").isNotNull)
        .select("sidecar.path")
        .collect()
        .map(r => fileName(r.getString(0)))
    }.toSet
  }

  private def fileName(path: String): String =
    try new Path(new URI(path)).getName
    catch { case NonFatal(_) => new Path(path).getName }
}
