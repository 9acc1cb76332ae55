package txlog.cli

import java.io.PrintStream

/** The answers of the command line that need no Spark: `--help`, and usage errors (unknown commands
  * or options, missing values or tables). Both entry points ask it before any Spark starts:
  * [[Main.main]], and `python -m txlog` through [[Usage.main]] in a plain JVM. With `--json`, a
  * usage error is also one JSON document on `out`, with the keys of every other document (`table`
  * and `dry_run` null: nothing ran) and `error.error_class` `INVALID_ARGUMENT`.
  *
  * {{{
  * java -cp "txlog.jar:<Spark jars>" txlog.cli.Usage vacuum --help   # prints, exits 0
  * }}}
  */
object Usage {

  /** The exit code of [[main]] for a valid command line: nothing printed, the command must run. */
  val GoOn = 100

  /** Some(exit code) when `argv` is answered here (help printed to `out`, or a usage error to
    * `err`), None when it is a command to run.
    *
    * {{{
    * Usage.answer(Seq("restore", "--dryrun"), System.out, System.err) // Some(2)
    * }}}
    */
  def answer(argv: Seq[String], out: PrintStream, err: PrintStream): Option[Int] = {
    def usage(err: PrintStream, problem: String): Int = Usage.usage(argv, out, err, problem)
    Args.parse(argv) match {
      case Left(problem) => Some(usage(err, problem))
      case Right(a) if a.command.isEmpty =>
        if (a.help) { out.print(Help.overall); out.flush(); Some(ExitCodes.Done) }
        else Some(usage(err, "no command given"))
      case Right(a) =>
        Help.Commands.find(_.name == a.command) match {
          case None => Some(usage(err, s"unknown command '${a.command}'"))
          case Some(c) if a.help =>
            out.print(Help.of(c.name).get)
            out.flush()
            Some(ExitCodes.Done)
          case Some(_) if a.tables.isEmpty =>
            Some(usage(err, "give at least one --table or --tables-file"))
          case Some(_) => None
        }
    }
  }

  private def usage(argv: Seq[String], out: PrintStream, err: PrintStream, problem: String) = {
    err.print(s"txlog: $problem (see --help)\n")
    err.flush()
    if (argv.contains("--json")) {
      val doc = new java.util.LinkedHashMap[String, Any]()
      doc.put("table", null)
      doc.put("command", argv.headOption.filterNot(_.startsWith("-")).orNull)
      doc.put("dry_run", null)
      val error = new java.util.LinkedHashMap[String, Any]()
      error.put("error_class", "INVALID_ARGUMENT")
      error.put("message", problem)
      doc.put("error", error)
      doc.put("exit_code", ExitCodes.Usage)
      doc.put("retryable", false)
      out.print(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(doc) + "\n")
      out.flush()
    }
    ExitCodes.Usage
  }

  /** Answers `argv` and exits with its code, or with [[GoOn]] when the command must run. */
  def main(argv: Array[String]): Unit =
    System.exit(answer(argv.toSeq, System.out, System.err).getOrElse(GoOn))
}
