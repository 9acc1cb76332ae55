package txlog.bench

import java.nio.file.{Files, Path}

import scala.collection.mutable.ArrayBuffer
import scala.util.Using
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.{count, lit, sum}

import txlog.{DeltaLog, Snapshot}

/** One timed run: its wall time and the JVM heap peak during it; W15 adds each table's time and
  * counts, or its error (as bench/golden_tables.py's `run`).
  */
final case class Run(seconds: Double, jvmHeapMb: Double, tables: Option[ObjectNode] = None)

/** bench/worker.py's tasks through txlog's Scala API: each call is one run of a job, timed and
  * checked against the table's manifest (a mismatch throws).
  */
final class BenchTasks(spark: SparkSession) {

  /** Runs `task` once on `table`. */
  def run(task: String, table: Path, manifest: Manifest): Run = task match {
    case "load"                => load(table, manifest)
    case "load_files"          => loadFiles(table, manifest)
    case "golden"              => golden(table, manifest, files = false)
    case "golden_files"        => golden(table, manifest, files = true)
    case "checkpoint"          => checkpoint(table, manifest)
    case "checkpoint_in_place" => checkpointInPlace(table, manifest)
    case "update"              => update(table, manifest)
    case "time_travel"         => timeTravel(table, manifest)
    case "plan_partition"      => scans.plan(table, "partition")
    case "plan_data"           => scans.plan(table, "data")
    case "read_rows"           => scans.readRows(table)
    case other                 => throw new IllegalArgumentException(s"unknown task $other")
  }

  private def log(table: Path): DeltaLog = DeltaLog.forTable(spark, table.toString)

  private val scans = new BenchScans(spark)

  import BenchTasks.timed

  /** W1, W2, W4, W7: the latest snapshot, with its file count and size, from a new log. */
  private def load(table: Path, manifest: Manifest): Run = {
    val (counts, run) = timed(Counts.of(log(table).snapshot()))
    Counts.check(counts, manifest.expected)
    run
  }

  /** The `-files` jobs: the latest snapshot's file list (every live add action), counted and its
    * sizes summed in one aggregation.
    */
  private def loadFiles(table: Path, manifest: Manifest): Run = {
    val (counts, run) = timed(BenchTasks.listed(log(table).snapshot()))
    Counts.check(counts, manifest.expected)
    run
  }

  /** W15: every table of the manifest loaded in turn (counts, or the file list with `files`), each
    * timed on its own; a table that fails is recorded with its error. `seconds` is the sum over the
    * loaded tables.
    */
  private def golden(root: Path, manifest: Manifest, files: Boolean): Run = {
    val tables = BenchTasks.mapper.createObjectNode()
    var total = 0.0
    var heap = 0.0
    for (name <- manifest.tables) {
      val entry = tables.putObject(name)
      try {
        val (counts, run) = timed {
          val snapshot = log(root.resolve(name)).snapshot()
          if (files) BenchTasks.listed(snapshot) else Counts.of(snapshot)
        }
        total += run.seconds
        heap = math.max(heap, run.jvmHeapMb)
        entry.put("seconds", run.seconds).put("version", counts.version)
        entry.put("num_files", counts.numFiles).put("size_in_bytes", counts.sizeInBytes)
      } catch {
        case NonFatal(e) =>
          val message = Option(e.getMessage).map(_.trim.take(300)).getOrElse("")
          entry.put("error", s"${e.getClass.getSimpleName}: $message")
      }
    }
    Run(total, heap, Some(tables))
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
  val names: Seq[String] = Seq(
    "load",
    "load_files",
    "checkpoint",
    "checkpoint_in_place",
    "update",
    "time_travel",
    "golden",
    "golden_files"
  ) ++ BenchScans.names

  private[bench] val mapper = new ObjectMapper()

  /** Runs `op`, timing it and taking the JVM heap peak during it. */
  def timed[A](op: => A): (A, Run) = {
    HeapPeak.reset()
    val start = System.nanoTime()
    val out = op
    val seconds = (System.nanoTime() - start) / 1e9
    (out, Run(seconds, HeapPeak.mb))
  }

  /** The snapshot's version with the count and total size of its file list (`allFiles`). */
  def listed(snapshot: Snapshot): Counts = {
    val row = snapshot.allFiles.agg(count(lit(1)), sum("size")).collect()(0)
    Counts(snapshot.version, row.getLong(0), if (row.isNullAt(1)) 0L else row.getLong(1))
  }

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
