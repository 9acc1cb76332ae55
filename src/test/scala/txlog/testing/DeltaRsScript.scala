package txlog.testing

import java.nio.file.{Files, Path, Paths}

import scala.sys.process._

/** delta-rs as an oracle for the Scala suites: `tests/scripts/delta_rs_table.py` run by the
  * project's virtualenv, several of its commands in one process (one start of Python and delta-rs).
  * Without the virtualenv the tests that need it are canceled.
  */
object DeltaRsScript {
  val python: Path = Paths.get(".venv", "bin", "python")
  val script: Path = Paths.get("tests", "scripts", "delta_rs_table.py")

  def available: Boolean = Files.isExecutable(python)
  def skipMessage: String = s"$python is absent (make venv creates it)"

  /** The script's standard output after running `commands` ((command, argument) pairs) in order; an
    * exit other than 0 fails with its standard error.
    *
    * {{{
    * val json = DeltaRsScript.run(Seq("write" -> dir.toString, "read" -> dir.toString))
    * }}}
    */
  def run(commands: Seq[(String, String)]): String = {
    val out = new StringBuilder
    val err = new StringBuilder
    val args = commands.flatMap { case (c, a) => Seq(c, a) }
    val code = (Seq(python.toString, script.toString) ++ args) ! ProcessLogger(
      l => out.append(l).append('\n'),
      l => err.append(l).append('\n')
    )
    if (code != 0) {
      throw new AssertionError(s"delta-rs ${commands.map(_._1).mkString(" ")} failed: $err")
    }
    out.toString
  }
}
