package txlog.util

import scala.jdk.CollectionConverters._

/** One field of a result's summary: its snake_case name, the type Python declares for it, and its
  * value as JSON writes it (numbers, strings, booleans, null, Java lists).
  */
private[txlog] final case class SummaryField[-R](name: String, pythonType: String, value: R => Any)

/** Typed constructors of [[SummaryField]]s: each gives the Python type its values have. */
private[txlog] object SummaryField {
  def long[R](name: String)(v: R => Long): SummaryField[R] = SummaryField(name, "int", v)
  def optLong[R](name: String)(v: R => Option[Long]): SummaryField[R] =
    SummaryField(name, "int | None", r => v(r).map(Long.box).orNull)
  def double[R](name: String)(v: R => Double): SummaryField[R] = SummaryField(name, "float", v)
  def bool[R](name: String)(v: R => Boolean): SummaryField[R] = SummaryField(name, "bool", v)
  def string[R](name: String)(v: R => String): SummaryField[R] = SummaryField(name, "str", v)
  def optString[R](name: String)(v: R => Option[String]): SummaryField[R] =
    SummaryField(name, "str | None", r => v(r).orNull)
  def strings[R](name: String)(v: R => Seq[String]): SummaryField[R] =
    SummaryField(name, "list[str]", r => v(r).asJava)
}

/** A result's summary, defined once: the Scala result's `summaryFields` (what `toJson`, the command
  * line's `--json` and the Python facade give) are read from it, and the Python result class is
  * generated from it (`python/txlog/_summaries.py`, by [[txlog.python.PythonSummaries]]; a suite
  * fails when the file is not what the shapes give).
  *
  * {{{
  * val Summary = SummaryShape[WriteResult]("WriteResult", "What txlog.write did.")(
  *   SummaryField.string("mode")(_.mode),
  *   SummaryField.long("version")(_.version)
  * )
  * def summaryFields = WriteResult.Summary.values(this)
  * }}}
  *
  * @param pythonName
  *   the Python class generated from it
  * @param doc
  *   its Python docstring
  * @param fields
  *   the summary's fields, in order
  * @param head
  *   fields the Python facade puts before them (the table and whether it was a dry run), which the
  *   command line writes in its own head
  */
private[txlog] final class SummaryShape[R] private (
    val pythonName: String,
    val doc: String,
    val fields: Seq[SummaryField[R]],
    val head: Seq[SummaryField[R]]
) {

  /** The summary of `r`: its fields' names and values, in order. */
  def values(r: R): Seq[(String, Any)] = fields.map(f => f.name -> f.value(r))

  /** What the Python facade gives for `r`: the head's fields, then the summary's. */
  def facadeValues(r: R): Seq[(String, Any)] = (head ++ fields).map(f => f.name -> f.value(r))

  /** The facade's fields: the head's, then the summary's. */
  def facadeFields: Seq[SummaryField[R]] = head ++ fields

  /** This shape with `fields` before the summary's in the facade's JSON (and the Python class). */
  def withHead(fields: SummaryField[R]*): SummaryShape[R] =
    new SummaryShape(pythonName, doc, this.fields, fields)
}

private[txlog] object SummaryShape {
  def apply[R](pythonName: String, doc: String)(fields: SummaryField[R]*): SummaryShape[R] =
    new SummaryShape(pythonName, doc, fields, Nil)
}
