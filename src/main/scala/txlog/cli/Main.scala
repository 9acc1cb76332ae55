package txlog.cli

import java.io.PrintStream

import org.apache.spark.sql.SparkSession

import scala.util.control.NonFatal

import txlog.DeltaLog
import txlog.util.Jobs

/** The maintenance command line, the same from spark-submit and from `python -m txlog`:
  *
  * {{{
  * spark-submit --class txlog.cli.Main txlog-spark_4.2_2.13-0.1.0.jar \
  *   validate --table /data/t --json
  * }}}
  *
  * Results go to stdout (one JSON document per table with `--json`, whatever happened to it: every
  * document has `table`, `command`, `dry_run`, `exit_code` and `retryable`, and on failure an
  * `error` with its `error_class` and `message`), progress and errors to stderr. Exit codes
  * ([[ExitCodes]]): 0 done, 1 findings, 2 usage error, 3 refused, 4 retryable failure (storage, a
  * concurrent commit), 5 other failure; the highest over the tables. A usage error runs nothing.
  */
object Main {

  /** The spark-submit entry point: runs the command line on the session and exits with its code.
    */
  def main(argv: Array[String]): Unit = {
    // Help and usage errors answer before any Spark starts.
    Usage.answer(argv.toSeq, System.out, System.err).foreach(code => System.exit(code))
    val spark =
      SparkSession.builder().appName("txlog " + argv.headOption.getOrElse("")).getOrCreate()
    val code =
      try run(spark, argv.toSeq, System.out, System.err)
      finally spark.stop()
    System.exit(code)
  }

  /** Runs a command line on `spark`, writing results to `out` and progress to `err`; returns the
    * exit code (the highest over the tables).
    *
    * {{{
    * val code = txlog.cli.Main.run(spark, Seq("describe", "--table", "/data/t", "--json"),
    *   System.out, System.err)
    * }}}
    */
  def run(spark: SparkSession, argv: Seq[String], out: PrintStream, err: PrintStream): Int =
    Usage.answer(argv, out, err).getOrElse {
      val a = Args.parse(argv).toOption.get
      val output = new Output(out, a.json)
      a.tables.map(t => table(spark, a, t, output, err)).max
    }

  /** One table: the command's outcome written, or its error; the exit code. */
  private def table(
      spark: SparkSession,
      a: Args,
      path: String,
      output: Output,
      err: PrintStream
  ): Int = {
    val started = System.nanoTime()
    def step(name: String): Unit = {
      err.print(f"[txlog] $path: $name (${(System.nanoTime() - started) / 1e9}%.1f s)\n")
      err.flush()
    }
    val head = Seq("table" -> path, "command" -> a.command, "dry_run" -> Commands.dryRun(a))
    def status(code: Int) = Seq("exit_code" -> code, "retryable" -> (code == ExitCodes.Retryable))
    try {
      val outcome = Jobs.named(spark, s"${a.command} $path") {
        val o = Commands.run(spark, a.command, DeltaLog.forTable(spark, path), a, step)
        // a result field the head already has (dry_run) is written once
        val own = o.fields.filterNot(f => head.exists(_._1 == f._1))
        try output.write(head, o.copy(fields = own ++ status(o.code)))
        finally o.release()
        o
      }
      step("done")
      outcome.code
    } catch {
      case NonFatal(e) =>
        val (errorClass, code) = ExitCodes.of(e)
        val message = String.valueOf(e.getMessage)
        err.print(s"[txlog] $path: $errorClass: $message\n")
        err.flush()
        val error = new java.util.LinkedHashMap[String, Any]()
        error.put("error_class", errorClass)
        error.put("message", message)
        output.write(head, Outcome(Seq("error" -> error) ++ status(code), code))
        code
    }
  }
}
