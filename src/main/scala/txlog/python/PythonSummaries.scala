package txlog.python

import txlog._
import txlog.util.SummaryShape

/** The Python result classes (`python/txlog/_summaries.py`), generated from the Scala results'
  * summary shapes, so a result's fields are written once. `PythonSummariesSuite` fails when the
  * file is not what [[render]] gives, and `make python-summaries` writes it.
  *
  * {{{
  * java.nio.file.Files.writeString(path, PythonSummaries.render)
  * }}}
  */
private[txlog] object PythonSummaries {

  /** The file, relative to the repository root. */
  val File = "python/txlog/_summaries.py"

  /** A Python class's own additions: the mixin (in `txlog._result_methods`) holding its methods,
    * and fields declared after the summary's, which the JVM summary does not carry.
    */
  private final case class Extras(mixin: String, fields: Seq[String])

  private val Handles = Seq(
    "_jresult: Any = field(repr=False, compare=False, default=None)",
    "_facade: Any = field(repr=False, compare=False, default=None)"
  )

  /** The shapes in the order the file defines them, with their Python additions. */
  private val Shapes: Seq[(SummaryShape[_], Option[Extras])] = Seq(
    WriteResult.Summary -> None,
    DeleteResult.Summary -> None,
    UpdateResult.Summary -> None,
    MergeResult.Summary -> None,
    OptimizeResult.Summary -> None,
    CommitResult.Summary -> None,
    CheckpointResult.Summary -> None,
    RestoreResult.Summary -> None,
    VacuumResult.Summary -> Some(
      Extras("VacuumMethods", "files: DataFrame = field(repr=False, compare=False)" +: Handles)
    ),
    RepairResult.Summary -> Some(
      Extras("RepairMethods", "actions: DataFrame = field(repr=False, compare=False)" +: Handles)
    )
  )

  private val Header =
    """'''The result classes of txlog's Python API, generated from the Scala results' summary
      |shapes (``Summary`` beside each result in src/main/scala/txlog) by ``make python-summaries``.
      |Do not edit: PythonSummariesSuite fails when this file is not what the shapes give.
      |
      |Each class is built from the JVM result's summary (JSON, the same snake_case names) by
      |``_of``; those with DataFrames and JVM handles take them as keyword arguments.
      |'''
      |
      |from __future__ import annotations
      |
      |import json
      |from dataclasses import dataclass, field, fields
      |from typing import Any
      |
      |from pyspark.sql import DataFrame
      |
      |from ._result_methods import RepairMethods, VacuumMethods
      |""".stripMargin.replace("'''", "\"\"\"")

  private val Builder =
    """
      |
      |def _from_summary(cls: Any, summary: str, extra: dict[str, Any]) -> Any:
      |    doc = json.loads(summary)
      |    names = [f.name for f in fields(cls) if f.init and f.name not in extra]
      |    return cls(**{n: doc[n] for n in names}, **extra)
      |""".stripMargin

  /** The whole file. */
  def render: String = {
    val names = Shapes.map(_._1.pythonName)
    val all = names.map(n => s"""    "$n",""").mkString("__all__ = [\n", "\n", "\n]\n")
    Header + "\n" + all + Builder + Shapes.map { case (s, e) => renderClass(s, e) }.mkString
  }

  private def renderClass(shape: SummaryShape[_], extras: Option[Extras]): String = {
    val name = shape.pythonName
    val base = extras.fold("")(e => s"(${e.mixin})")
    val doc = shape.doc.split("\n", -1).map(l => if (l.isEmpty) l else "    " + l)
    val declared = (shape.head ++ shape.fields).map(f => s"    ${f.name}: ${f.pythonType}") ++
      extras.toSeq.flatMap(_.fields).map("    " + _)
    val lines = Seq("", "", "@dataclass(frozen=True)", s"class $name$base:") ++
      (("    \"\"\"" + doc.head.trim) +: doc.tail) ++ Seq("    \"\"\"", "") ++ declared ++ Seq(
        "",
        "    @classmethod",
        s"    def _of(cls, summary: str, **extra: Any) -> $name:",
        "        return _from_summary(cls, summary, extra)  # type: ignore[no-any-return]"
      )
    lines.mkString("\n") + "\n"
  }
}
