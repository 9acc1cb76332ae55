package txlog.bench

import java.nio.file.{Files, Path, Paths}

import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.SparkSession

/** The Scala runner of the benchmark harness (engine `txlog-scala` in bench/run.py): the same
  * arguments, work and JSON result as bench/worker.py, through txlog's Scala API.
  *
  * {{{
  * build/sbt 'set bench/Compile/run/javaOptions += "-Xmx4g"' \
  *   'bench/runMain txlog.bench.BenchMain --job load T [--job TASK T ...] --runs N --out R.json'
  * }}}
  *
  * One local[2] SparkSession (created and timed apart as `startup_s`) runs each job `N` times; each
  * run is timed with the JVM heap peak during it and checked against the table's
  * `../manifest.json`. A job that fails is recorded as `failed` with its error and the others still
  * run. Memory: `python_rss_mb` is null (there is no Python process), `jvm_rss_mb` is this JVM's
  * VmHWM. Progress goes to stderr.
  */
object BenchMain {
  private val Engine = "txlog-scala"
  private val ShufflePartitions = 8
  private val mapper = new ObjectMapper()

  /** The parsed command line. */
  private final case class Args(jobs: Seq[(String, Path)], runs: Int, out: Path)

  def main(argv: Array[String]): Unit = {
    val args = parse(argv.toList, Args(Vector.empty, 1, null))
    val result = mapper.createObjectNode().put("engine", Engine).put("status", "ok")
    val jobs = result.putArray("jobs")
    try {
      val start = System.nanoTime()
      val spark = session()
      result.put("startup_s", (System.nanoTime() - start) / 1e9)
      val tasks = new BenchTasks(spark)
      for ((task, table) <- args.jobs) jobs.add(runJob(tasks, task, table, args.runs))
      memory(result.putObject("memory"))
      spark.stop()
    } catch {
      case NonFatal(e) =>
        e.printStackTrace()
        result.put("status", "failed").put("error", describe(e))
    }
    Files.writeString(args.out, mapper.writerWithDefaultPrettyPrinter.writeValueAsString(result))
    sys.exit(0)
  }

  private def session(): SparkSession = {
    val spark = SparkSession
      .builder()
      .master("local[2]")
      .appName("bench-txlog-scala")
      .config("spark.sql.shuffle.partitions", ShufflePartitions.toString)
      .config("spark.ui.enabled", "false")
      .config("spark.ui.showConsoleProgress", "false")
      .getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    spark
  }

  private def runJob(tasks: BenchTasks, task: String, table: Path, runs: Int): ObjectNode = {
    val job = mapper.createObjectNode().put("task", task).put("table", table.toString)
    job.put("status", "ok")
    val results = job.putArray("runs")
    System.err.println(s"[bench] $task $table: $runs run(s)")
    try {
      val manifest = Manifest.of(table)
      for (_ <- 1 to runs) {
        val run = tasks.run(task, table, manifest)
        System.err.println(f"[bench]   ${run.seconds}%.3f s, heap ${run.jvmHeapMb}%.0f MiB")
        val node = results.addObject().put("seconds", run.seconds).put("jvm_heap_mb", run.jvmHeapMb)
        run.tables.foreach(node.set[ObjectNode]("tables", _))
      }
    } catch {
      case NonFatal(e) =>
        e.printStackTrace()
        job.put("status", "failed").put("error", describe(e))
    }
    job
  }

  private def memory(node: ObjectNode): Unit = {
    node.putNull("python_rss_mb")
    PeakRss.mb match {
      case Some(mb) => node.put("jvm_rss_mb", mb)
      case None     => node.putNull("jvm_rss_mb")
    }
    node.put("jvm_heap_mb", HeapPeak.mb)
  }

  /** The exception's class and the first line of its message, as worker.py's `describe`. */
  private def describe(e: Throwable): String = {
    val first = Option(e.getMessage).map(_.trim.linesIterator.nextOption().getOrElse(""))
    s"${e.getClass.getSimpleName}: ${first.getOrElse("")}".take(500)
  }

  private def parse(argv: List[String], acc: Args): Args = argv match {
    case "--job" :: task :: table :: rest if BenchTasks.names.contains(task) =>
      parse(rest, acc.copy(jobs = acc.jobs :+ (task -> Paths.get(table).toAbsolutePath)))
    case "--job" :: task :: _ :: _ => usage(s"unknown task $task")
    case "--runs" :: n :: rest if n.toIntOption.exists(_ > 0) =>
      parse(rest, acc.copy(runs = n.toInt))
    case "--out" :: out :: rest                      => parse(rest, acc.copy(out = Paths.get(out)))
    case Nil if acc.jobs.nonEmpty && acc.out != null => acc
    case Nil                                         => usage("--job and --out are required")
    case other :: _                                  => usage(s"unexpected argument $other")
  }

  private def usage(problem: String): Nothing = {
    System.err.println(
      s"BenchMain: $problem\nusage: BenchMain --job TASK TABLE [--job ...] --runs N --out " +
        s"RESULT.json\ntasks: ${BenchTasks.names.mkString(", ")}"
    )
    sys.exit(2)
  }
}
