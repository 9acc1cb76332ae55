package txlog.cli

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}

import scala.jdk.CollectionConverters._

/** A parsed command line: the command, the tables, the common flags and the command's own options
  * (`--name value`, and its flags as `name -> "true"`). Left is a usage error.
  */
private[txlog] final case class Args(
    command: String,
    tables: Seq[String],
    json: Boolean,
    dryRun: Option[Boolean],
    help: Boolean,
    options: Map[String, String]
)

private[txlog] object Args {

  /** Parses `argv` against the command's options ([[Help.Command]]): an option the command does not
    * take, or one without its value, is a usage error, so a mistyped flag (`--dryrun`) never runs a
    * command for real. With `--help` anywhere, only the help is asked for.
    */
  def parse(argv: Seq[String]): Either[String, Args] = {
    val (command, rest) = argv.headOption match {
      case Some(c) if !c.startsWith("-") => (c, argv.tail)
      case _                             => ("", argv)
    }
    val spec = Help.Commands.find(_.name == command)
    val help = rest.exists(a => a == "--help" || a == "-h")
    val common = Help.CommonOpts
    val flagNames = Set("-h") ++ (common.filter(_.metavar.isEmpty).map(_.name) ++
      spec.toSeq.flatMap(_.flags)).map("--" + _)
    val valued = (common.filter(_.metavar.isDefined).map(_.name) ++
      spec.toSeq.flatMap(_.valued)).map("--" + _).toSet
    var tables = Vector.empty[String]
    var options = Map.empty[String, String]
    var flags = Set.empty[String]
    var i = 0
    while (i < rest.length) {
      val a = rest(i)
      if (flagNames(a)) { flags += a; i += 1 }
      else if (valued(a)) {
        if (i + 1 >= rest.length || rest(i + 1).startsWith("--")) {
          if (!help) return Left(s"$a needs a value")
          i += 1
        } else {
          val v = rest(i + 1)
          a match {
            case "--table" => tables :+= v
            case "--tables-file" =>
              val p = Paths.get(v)
              if (!help && !Files.isRegularFile(p)) return Left(s"--tables-file $v: no such file")
              if (Files.isRegularFile(p)) {
                tables ++= Files
                  .readAllLines(p, UTF_8)
                  .asScala
                  .map(_.trim)
                  .filter(l => l.nonEmpty && !l.startsWith("#"))
              }
            case _ => options += a.stripPrefix("--") -> v
          }
          i += 2
        }
      } else if (help) i += 1
      else if (a.startsWith("-") && spec.isDefined) {
        return Left(s"${spec.get.name} has no option '$a'")
      } else if (a.startsWith("-") && command.nonEmpty) i += 1 // the unknown command is reported
      else return Left(s"unexpected argument '$a'")
    }
    if (flags("--dry-run") && flags("--execute")) Left("give --dry-run or --execute, not both")
    else
      Right(
        Args(
          command,
          tables,
          json = flags("--json"),
          dryRun =
            if (flags("--execute")) Some(false) else if (flags("--dry-run")) Some(true) else None,
          help = help,
          options = options ++ flags
            .filterNot(f =>
              common.exists("--" + _.name == f) || f == "-h" || f == "--dry-run" || f == "--execute"
            )
            .map(_.stripPrefix("--") -> "true")
        )
      )
  }
}
