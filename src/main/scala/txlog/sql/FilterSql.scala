package txlog.sql

import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.sources._

/** Spark's data source filters as SQL predicates over the table's columns: the text a read applies
  * to the snapshot's rows (so the file index prunes partitions and skips files by it) and the
  * `replaceWhere` of an overwrite by filter. A filter with no SQL form here is None; the caller
  * decides whether that is acceptable (a read leaves it to Spark, an overwrite refuses).
  *
  * Spark names a top-level column in a filter as it is (`a b`, `x.y` for a column with a dot) and a
  * nested field by its quoted-if-needed parts (`s.a`, `` s.`x y` ``); so a name that is one of the
  * table's top-level columns (`top`) is quoted whole, any other is taken as Spark wrote it.
  *
  * {{{
  * FilterSql.of(EqualTo("a b", 1), Set("a b")) // Some("`a b` = 1")
  * }}}
  */
private[txlog] object FilterSql {

  def of(f: Filter, top: Set[String]): Option[String] = new Translation(top).of(f)

  /** The conjunction of `filters`, or None when one has no SQL form. */
  def conjunction(filters: Seq[Filter], top: Set[String]): Option[String] = {
    val t = new Translation(top)
    all(filters.map(t.of)).map(fs =>
      if (fs.isEmpty) "true" else fs.map(p => s"($p)").mkString(" AND ")
    )
  }

  private def all(xs: Seq[Option[String]]): Option[Seq[String]] =
    if (xs.forall(_.isDefined)) Some(xs.map(_.get)) else None

  private final class Translation(top: Set[String]) {
    def of(f: Filter): Option[String] = f match {
      case AlwaysTrue()             => Some("true")
      case AlwaysFalse()            => Some("false")
      case EqualTo(a, v)            => binary(a, "=", v)
      case EqualNullSafe(a, v)      => binary(a, "<=>", v)
      case GreaterThan(a, v)        => binary(a, ">", v)
      case GreaterThanOrEqual(a, v) => binary(a, ">=", v)
      case LessThan(a, v)           => binary(a, "<", v)
      case LessThanOrEqual(a, v)    => binary(a, "<=", v)
      case IsNull(a)                => Some(s"${name(a)} IS NULL")
      case IsNotNull(a)             => Some(s"${name(a)} IS NOT NULL")
      case In(a, vs) if vs.nonEmpty =>
        all(vs.toSeq.map(literal)).map(l => s"${name(a)} IN (${l.mkString(", ")})")
      case StringStartsWith(a, v) => call("startswith", a, v)
      case StringEndsWith(a, v)   => call("endswith", a, v)
      case StringContains(a, v)   => call("contains", a, v)
      case And(l, r)              => both(l, r, "AND")
      case Or(l, r)               => both(l, r, "OR")
      case Not(c)                 => of(c).map(s => s"NOT ($s)")
      case _                      => None
    }

    private def literal(v: Any): Option[String] =
      scala.util.Try(Literal.create(v).sql).toOption

    private def name(a: String): String = if (top(a)) s"`${a.replace("`", "``")}`" else a

    private def binary(a: String, op: String, v: Any) = literal(v).map(l => s"${name(a)} $op $l")

    private def call(fn: String, a: String, v: String) =
      literal(v).map(l => s"$fn(${name(a)}, $l)")

    private def both(l: Filter, r: Filter, op: String) =
      for (a <- of(l); b <- of(r)) yield s"($a) $op ($b)"

  }
}
