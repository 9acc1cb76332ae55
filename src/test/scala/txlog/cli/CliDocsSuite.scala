package txlog.cli

import java.nio.file.{Files, Paths}

import org.scalatest.funsuite.AnyFunSuite

/** The command line's one definition ([[Help.Commands]]: what [[Args]] accepts and `--help` prints)
  * and docs/operations.md's table of commands agree: the same commands, each with the same options,
  * and the same default (a dry run or not).
  */
class CliDocsSuite extends AnyFunSuite with txlog.testing.Claimed {

  private lazy val rows: Map[String, (Set[String], String)] = {
    val text = new String(Files.readAllBytes(Paths.get("docs", "operations.md")), "UTF-8")
    val section = text.split("\n## ").find(_.startsWith("Maintenance CLI")).getOrElse(fail())
    val Row = """^\| `([a-z-]+)` \|(.*)\|(.*)\|$""".r
    section.linesIterator.collect { case Row(cmd, opts, default) =>
      cmd -> ("--([a-z-]+)".r.findAllMatchIn(opts).map(_.group(1)).toSet, default.trim)
    }.toMap
  }

  test("docs/operations.md lists every command, with every option it accepts") {
    assert(rows.keySet === Help.Commands.map(_.name).toSet)
    Help.Commands.foreach { c =>
      assert(rows(c.name)._1 === c.opts.map(_.name).toSet, c.name)
    }
  }

  test("the default of each command is the documented one, and --help shows every option") {
    Help.Commands.foreach { c =>
      val documented = rows(c.name)._2
      if (c.opts.exists(_.name == "dry-run")) {
        assert((documented == "a dry run") === c.dryRunByDefault, c.name)
      } else assert(documented.isEmpty, c.name)
      val help = Help.of(c.name).get
      c.opts.foreach(o => assert(help.contains(o.usage), s"${c.name} --help lacks ${o.usage}"))
      Help.CommonOpts.foreach(o => assert(help.contains(o.usage)))
    }
  }

  test("every option of the definition parses, and no other") {
    Help.Commands.foreach { c =>
      c.opts.foreach { o =>
        val argv = Seq(c.name, "--table", "/t", s"--${o.name}") ++ o.metavar.map(_ => "1")
        assert(Args.parse(argv).isRight, argv)
      }
      assert(Args.parse(Seq(c.name, "--table", "/t", "--no-such-option")).isLeft)
    }
  }
}
