package txlog.sql

import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.connector.expressions.{Expression, Literal => V2Literal, NamedReference}
import org.apache.spark.sql.connector.expressions.filter.Predicate

/** Spark's connector predicates (`Predicate`, what Spark hands a table's `canDeleteWhere` and
  * `deleteWhere`) as SQL over the table's columns, node by node: a predicate with any node this
  * does not know (a function, arithmetic, a cast) has no SQL form, so nothing of it is ever
  * dropped. Spark's own conversion to data source filters keeps what it can convert of some
  * predicates; a delete by filters built from that would delete other rows than the statement's.
  *
  * {{{
  * PredicateSql.of(predicate, Set("part")) // Some("(`part` IN ('a', 'b'))")
  * }}}
  */
private[txlog] object PredicateSql {

  private val Binary = Set("=", "<>", "<=>", "<", "<=", ">", ">=")
  private val Calls = Map(
    "STARTS_WITH" -> "startswith",
    "ENDS_WITH" -> "endswith",
    "CONTAINS" -> "contains"
  )

  /** `p` as SQL, when every column it names is one of `columns` (top-level names) and every node
    * has a SQL form here; else None.
    */
  def of(p: Predicate, columns: Set[String]): Option[String] = new Translation(columns).pred(p)

  private final class Translation(columns: Set[String]) {
    def pred(p: Predicate): Option[String] = {
      val c = p.children().toSeq
      p.name() match {
        case "ALWAYS_TRUE" if c.isEmpty  => Some("true")
        case "ALWAYS_FALSE" if c.isEmpty => Some("false")
        case "AND" | "OR" if c.length == 2 =>
          for (l <- sub(c(0)); r <- sub(c(1))) yield s"(($l) ${p.name()} ($r))"
        case "NOT" if c.length == 1 => sub(c(0)).map(s => s"(NOT ($s))")
        case "IS_NULL" | "IS_NOT_NULL" if c.length == 1 =>
          value(c(0)).map(v => s"($v ${p.name().replace('_', ' ')})")
        case op if Binary(op) && c.length == 2 =>
          for (l <- value(c(0)); r <- value(c(1))) yield s"($l $op $r)"
        case "IN" if c.length >= 2 =>
          all(c.map(value)).map(vs => s"(${vs.head} IN (${vs.tail.mkString(", ")}))")
        case call if Calls.contains(call) && c.length == 2 =>
          for (l <- value(c(0)); r <- value(c(1))) yield s"${Calls(call)}($l, $r)"
        case _ => None
      }
    }

    private def sub(e: Expression): Option[String] = e match {
      case p: Predicate => pred(p)
      case _            => None
    }

    /** A column of `columns` or a literal. */
    private def value(e: Expression): Option[String] = e match {
      case r: NamedReference if r.fieldNames().length == 1 && columns(r.fieldNames()(0)) =>
        Some(s"`${r.fieldNames()(0).replace("`", "``")}`")
      case l: V2Literal[_] =>
        scala.util.Try(Literal(l.value(), l.dataType()).sql).toOption
      case _ => None
    }

    private def all(xs: Seq[Option[String]]): Option[Seq[String]] =
      if (xs.forall(_.isDefined)) Some(xs.map(_.get)) else None
  }
}
