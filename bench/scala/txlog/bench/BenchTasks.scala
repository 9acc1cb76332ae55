package txlog.bench

import java.nio.file.{Files, Path}

import scala.collection.mutable.ArrayBuffer
import scala.util.Using

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.SparkSession

import txlog.{DeltaLog, Snapshot}

/** One timed run: its wall time and the JVM heap peak during it. */
final case class Run(seconds: Double, jvmHeapMb: Double)

/** bench/worker.py's tasks through txlog's Scala API: each call is one run of a job, timed and
  * checked against the table's manifest (a mismatch throws).
  */
final class BenchTasks(spark: SparkSession) {

  /** Runs `task` once on `table`. */
  def run(task: String, table: Path, manifest: Manifest): Run = task match {
    case "load"                => load(table, manifest)
    case "checkpoint"          => checkpoint(table, manifest)
    case "checkpoint_in_place" => checkpointInPlace(table, manifest)
    case "update"              => update(table, manifest)
    case "time_travel"         => timeTravel(table, manifest)
    case other                 => throw new IllegalArgumentException(s"unknown task $other")
  }

  private def log(table: Path): DeltaLog = DeltaLog.forTable(spark, table.toString)

  private def timed[A](op: => A): (A, Run) = {
    HeapPeak.reset()
    val start = System.nanoTime()
    val out = op
    val seconds = (System.nanoTime() - start) / 1e9
    (out, Run(seconds, HeapPeak.mb))
  }

  /** W1, W2, W4, W7: the latest snapshot, with its file count and size, from a new log. */
  private def load(table: Path, manifest: Manifest): Run = {
    val (counts, run) = timed(Counts.of(log(table).snapshot()))
    Counts.check(counts, manifest.expected)
    run
  }

  /** W3: a checkpoint of the latest version of a fresh copy (copied before timing); then, untimed,
    * the checkpoint file is looked for and the copy is loaded.
    */
  private def checkpoint(table: Path, manifest: Manifest): Run = Scratch.withCopy(table) { copy =>
    val (_, run) = timed(log(copy).checkpoint())
    BenchTasks.checkCheckpoint(copy, manifest.expected.version)
    Counts.check(Counts.of(log(copy).snapshot()), manifest.expected)
    run
  }

  /** A checkpoint written into the table itself (run.py prepares W7's table with it). */
  private def checkpointInPlace(table: Path, manifest: Manifest): Run = {
    val (_, run) = timed(log(table).checkpoint())
    BenchTasks.checkCheckpoint(table, manifest.expected.version)
    run
  }

  /** W5: on a copy, a cached snapshot is opened (untimed), the planned commit appended, and
    * `update()` timed with the new snapshot's counts; every snapshot is unpersisted after.
    */
  private def update(table: Path, manifest: Manifest): Run = {
    val (counts, run, expected) = Scratch.withCopy(table) { copy =>
      val deltaLog = log(copy)
      val snapshots = ArrayBuffer[Snapshot](deltaLog.snapshot().cache())
      try {
        Counts.of(snapshots.head)
        val expected = manifest.appendCommit(copy)
        val (counts, run) = timed {
          snapshots += deltaLog.update()
          Counts.of(snapshots.last)
        }
        (counts, run, expected)
      } finally snapshots.foreach(_.unpersist())
    }
    Counts.check(counts, expected)
    run
  }

  /** W6: the snapshot in force at the manifest's ISO-8601 timestamp. */
  private def timeTravel(table: Path, manifest: Manifest): Run = {
    val (timestamp, expected) = manifest.timeTravel
    val (counts, run) = timed(Counts.of(log(table).snapshotAsOf(timestamp)))
    Counts.check(counts, expected)
    run
  }
}

/** The task names and the checkpoint check shared by the checkpointing tasks. */
object BenchTasks {

  /** The tasks, as bench/worker.py names them. */
  val names: Seq[String] = Seq("load", "checkpoint", "checkpoint_in_place", "update", "time_travel")

  private val mapper = new ObjectMapper()

  /** As worker.py's `check_checkpoint`: a checkpoint file for `version` exists (classic, multi-part
    * or v2) and `_last_checkpoint` points at that version.
    */
  def checkCheckpoint(table: Path, version: Long): Unit = {
    val logDir = table.resolve("_delta_log")
    val prefix = f"$version%020d.checkpoint"
    val written = Using.resource(Files.list(logDir)) { files =>
      files.anyMatch(_.getFileName.toString.startsWith(prefix))
    }
    if (!written) throw new Mismatch(s"no checkpoint written at version $version")
    val last = mapper.readTree(logDir.resolve("_last_checkpoint").toFile).get("version").asLong
    if (last != version) {
      throw new Mismatch(s"_last_checkpoint is at version $last, not $version")
    }
  }
}
