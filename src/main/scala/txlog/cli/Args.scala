package txlog.cli

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}

import scala.jdk.CollectionConverters._

/** A parsed command line: the command, the tables, the common flags and the command's own options
  * (`--name value`). Left is a usage error.
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

  /** Flags that take no value. */
  private val Flags =
    Set("--json", "--dry-run", "--execute", "--help", "-h", "--validate", "--force", "--lite")

  def parse(argv: Seq[String]): Either[String, Args] = {
    val (command, rest) = argv.headOption match {
      case Some(c) if !c.startsWith("-") => (c, argv.tail)
      case _                             => ("", argv)
    }
    var tables = Vector.empty[String]
    var options = Map.empty[String, String]
    var flags = Set.empty[String]
    var i = 0
    while (i < rest.length) {
      val a = rest(i)
      if (Flags(a)) { flags += a; i += 1 }
      else if (a.startsWith("--") && i + 1 < rest.length) {
        val v = rest(i + 1)
        a match {
          case "--table" => tables :+= v
          case "--tables-file" =>
            val p = Paths.get(v)
            if (!Files.isRegularFile(p)) return Left(s"--tables-file $v: no such file")
            tables ++= Files
              .readAllLines(p, UTF_8)
              .asScala
              .map(_.trim)
              .filter(l => l.nonEmpty && !l.startsWith("#"))
          case _ => options += a.stripPrefix("--") -> v
        }
        i += 2
      } else return Left(s"unexpected argument '$a'")
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
          help = flags("--help") || flags("-h"),
          options = options ++
            Seq("validate", "force", "lite").filter(f => flags(s"--$f")).map(_ -> "true")
        )
      )
  }
}
