package txlog.python

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}

import org.scalatest.funsuite.AnyFunSuite

/** `python/txlog/_summaries.py` is what the Scala results' summary shapes give: a field added,
  * renamed or retyped on the JVM side fails here until `make python-summaries` writes the file
  * again, so Python's result classes never drift from the summaries the JVM sends.
  */
class PythonSummariesSuite extends AnyFunSuite with txlog.testing.Claimed {

  test("python/txlog/_summaries.py is generated from the current summary shapes") {
    val file = Paths.get(PythonSummaries.File)
    assert(Files.exists(file), s"$file is missing: run make python-summaries")
    val onDisk = new String(Files.readAllBytes(file), UTF_8)
    assert(
      onDisk == PythonSummaries.render,
      s"$file is not what the summary shapes give: run make python-summaries"
    )
  }

  test("the generated classes declare every summary field with its Python type") {
    val text = PythonSummaries.render
    Seq(
      "class WriteResult:" -> "    num_output_rows: int",
      "class DeleteResult:" -> "    num_deleted_rows: int | None",
      "class CommitResult:" -> "    post_commit_problems: list[str]",
      "class VacuumResult(VacuumMethods):" -> "    retention_hours: float",
      "class RepairResult(RepairMethods):" -> "    set_aside_dir: str | None"
    ).foreach { case (cls, decl) =>
      val body = text.split("\n\n\n").find(_.contains(cls)).getOrElse(fail(s"no $cls"))
      assert(body.contains(decl + "\n"), s"$cls lacks $decl")
    }
  }
}

/** Writes `python/txlog/_summaries.py` from the summary shapes (`make python-summaries`). */
object WritePythonSummaries {
  def main(args: Array[String]): Unit = {
    Files.write(Paths.get(PythonSummaries.File), PythonSummaries.render.getBytes(UTF_8))
    ()
  }
}
