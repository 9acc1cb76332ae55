package txlog.scan

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._

import org.apache.spark.sql.txlog.SparkExpressions

/** Data filters as a condition on a file's statistics ("Per-file Statistics"): false only when the
  * statistics prove that no valid row of the file can match; true whenever they cannot (no
  * statistics, a column without them, an expression not understood). Spark evaluates every filter
  * again on the rows read, so a kept file costs time, never correctness.
  *
  * What the spec lets a reader rely on, with tight or wide bounds alike: minValues is at most and
  * maxValues at least every valid value; a nullCount of 0 means no nulls, one equal to numRecords
  * means only nulls, any other value says nothing. Strings are cut off at a prefix, so a maximum
  * may be shorter than the values it bounds: a value starting with it may be larger. Timestamps are
  * truncated to milliseconds, so a maximum may be up to 999 microseconds short.
  *
  * {{{
  * val kept = files.where(DataSkipping(statsSchema).condition(dataFilters, col("stats")))
  * }}}
  */
private[txlog] final class DataSkipping(
    /** The column paths (logical names) that have min/max statistics, with their types. */
    minMax: Map[Seq[String], DataType],
    /** The column paths that have null counts. */
    nullCounts: Set[Seq[String]]
) {

  /** At most this many values of an IN list are compared with the statistics. */
  private val MaxInValues = 200

  /** The column paths with statistics that [[condition]] may read for `filters`: every column the
    * filters name that has min/max or null count statistics. Parsing the statistics of these alone
    * gives the condition all it reads.
    */
  def columns(filters: Seq[Expression]): Set[Seq[String]] =
    filters
      .flatMap(_.collect { case ColumnPath(p) => p })
      .toSet
      .filter(p => minMax.contains(p) || nullCounts(p))

  def condition(filters: Seq[Expression], stats: Column): Column = {
    val parts = filters.flatMap(f => skip(f, stats))
    parts.reduceOption(_ && _).map(c => coalesce(c, lit(true))).getOrElse(lit(true))
  }

  /** The condition for one expression, or None when it says nothing about the statistics. */
  private def skip(e: Expression, s: Column): Option[Column] = e match {
    case And(a, b) =>
      (skip(a, s), skip(b, s)) match {
        case (Some(x), Some(y)) => Some(x && y)
        case (x, y)             => x.orElse(y)
      }
    case Or(a, b)   => for { x <- skip(a, s); y <- skip(b, s) } yield keepNull(x) || keepNull(y)
    case Not(inner) => negated(inner, s)
    case IsNull(ColumnPath(p)) if nullCounts(p) =>
      Some(field(s, "nullCount" +: p) =!= lit(0L))
    case IsNotNull(ColumnPath(p)) if nullCounts(p) =>
      Some(field(s, "nullCount" +: p) =!= field(s, Seq("numRecords")))
    case EqualTo(ColumnPath(p), Lit(v))                          => eq(p, v, s)
    case EqualTo(Lit(v), ColumnPath(p))                          => eq(p, v, s)
    case EqualNullSafe(ColumnPath(p), Lit(v)) if v.value != null => eq(p, v, s)
    case EqualNullSafe(Lit(v), ColumnPath(p)) if v.value != null => eq(p, v, s)
    case LessThan(ColumnPath(p), Lit(v))                         => below(p, v, s, strict = true)
    case LessThan(Lit(v), ColumnPath(p))                         => above(p, v, s, strict = true)
    case LessThanOrEqual(ColumnPath(p), Lit(v))                  => below(p, v, s, strict = false)
    case LessThanOrEqual(Lit(v), ColumnPath(p))                  => above(p, v, s, strict = false)
    case GreaterThan(ColumnPath(p), Lit(v))                      => above(p, v, s, strict = true)
    case GreaterThan(Lit(v), ColumnPath(p))                      => below(p, v, s, strict = true)
    case GreaterThanOrEqual(ColumnPath(p), Lit(v))               => above(p, v, s, strict = false)
    case GreaterThanOrEqual(Lit(v), ColumnPath(p))               => below(p, v, s, strict = false)
    case In(ColumnPath(p), values)
        if values.nonEmpty && values.size <= MaxInValues && values.forall(
          _.isInstanceOf[Literal]
        ) =>
      val each = values.collect { case l: Literal if l.value != null => eq(p, l, s) }
      if (each.exists(_.isEmpty)) None
      else Some(each.flatten.map(keepNull).reduceOption(_ || _).getOrElse(lit(false)))
    case InSet(ColumnPath(p), set) if set.nonEmpty && set.size <= MaxInValues =>
      val t = minMax.get(p)
      t.flatMap { dt =>
        val each = set.toSeq.filter(_ != null).map(v => eq(p, Literal.create(v, dt), s))
        if (each.exists(_.isEmpty)) None
        else Some(each.flatten.map(keepNull).reduceOption(_ || _).getOrElse(lit(false)))
      }
    case StartsWith(ColumnPath(p), Lit(v))
        if minMax.get(p).contains(StringType) && v.value != null =>
      val prefix = v.value.toString
      val n = prefix.length
      val min = field(s, "minValues" +: p)
      val max = field(s, "maxValues" +: p)
      Some(
        keepNull(substring(min, 1, n) <= lit(prefix)) &&
          keepNull(substring(max, 1, n) >= lit(prefix) || lit(prefix).startsWith(max))
      )
    case _ => None
  }

  /** NOT of an expression: pushed through AND, OR and NOT, and the comparisons flipped. */
  private def negated(e: Expression, s: Column): Option[Column] = e match {
    case Not(inner)               => skip(inner, s)
    case And(a, b)                => skip(Or(Not(a), Not(b)), s)
    case Or(a, b)                 => skip(And(Not(a), Not(b)), s)
    case IsNull(c)                => skip(IsNotNull(c), s)
    case IsNotNull(c)             => skip(IsNull(c), s)
    case LessThan(a, b)           => skip(GreaterThanOrEqual(a, b), s)
    case LessThanOrEqual(a, b)    => skip(GreaterThan(a, b), s)
    case GreaterThan(a, b)        => skip(LessThanOrEqual(a, b), s)
    case GreaterThanOrEqual(a, b) => skip(LessThan(a, b), s)
    case _                        => None
  }

  /** A part of an OR or IN whose statistics are missing must keep the file. */
  private def keepNull(c: Column): Column = coalesce(c, lit(true))

  private def eq(p: Seq[String], v: Literal, s: Column): Option[Column] =
    for {
      lo <- below(p, v, s, strict = false); hi <- above(p, v, s, strict = false)
    } yield lo && hi

  /** Some valid value may be below `v` (or equal, unless strict): minValues is a lower bound. */
  private def below(p: Seq[String], v: Literal, s: Column, strict: Boolean): Option[Column] =
    comparable(p, v).map { value =>
      val min = field(s, "minValues" +: p)
      if (strict) min < value else min <= value
    }

  /** Some valid value may be above `v` (or equal, unless strict): maxValues is an upper bound, once
    * widened by what truncation took off it.
    */
  private def above(p: Seq[String], v: Literal, s: Column, strict: Boolean): Option[Column] =
    comparable(p, v).map { value =>
      val max = field(s, "maxValues" +: p)
      minMax(p) match {
        case StringType =>
          (if (strict) max > value else max >= value) || value.startsWith(max)
        case TimestampType | TimestampNTZType =>
          // max >= v - 999us, with v moved instead of max (same type, one literal)
          val moved = SparkExpressions.column(
            Literal.create(v.value.asInstanceOf[Long] - 999L, v.dataType)
          )
          if (strict) max > moved else max >= moved
        case _ => if (strict) max > value else max >= value
      }
    }

  /** The literal as a column of the statistic's type, when the column has min/max statistics of the
    * literal's type (Spark casts the literal to the column's type before it gets here).
    */
  private def comparable(p: Seq[String], v: Literal): Option[Column] =
    minMax.get(p).filter(t => v.value != null && t == v.dataType).map { _ =>
      SparkExpressions.column(v)
    }

  private def field(s: Column, path: Seq[String]): Column = path.foldLeft(s)(_.getField(_))

  private object Lit {
    def unapply(e: Expression): Option[Literal] = e match {
      case l: Literal => Some(l)
      case _          => None
    }
  }
}

private[txlog] object DataSkipping {

  /** Skipping by the statistics of a table schema's data columns (partition columns excluded):
    * min/max where the spec gives them (not booleans, binaries, arrays, maps, variants), null
    * counts for every leaf.
    */
  def apply(dataColumns: Seq[StructField]): DataSkipping = {
    def leaves(fields: Seq[StructField], prefix: Seq[String]): Seq[(Seq[String], DataType)] =
      fields.flatMap { f =>
        f.dataType match {
          case s: StructType => leaves(s.fields.toSeq, prefix :+ f.name)
          case t             => Seq((prefix :+ f.name) -> t)
        }
      }
    val all = leaves(dataColumns, Nil)
    val minMax = all.filter { case (_, t) =>
      t match {
        case _: NumericType | StringType | DateType | TimestampType | TimestampNTZType => true
        case _                                                                         => false
      }
    }
    new DataSkipping(minMax.toMap, all.map(_._1).toSet)
  }
}

/** A column, or a field nested in struct columns, named by its path of logical names. */
private[txlog] object ColumnPath {
  def unapply(e: Expression): Option[Seq[String]] = e match {
    case a: AttributeReference                => Some(Seq(a.name))
    case GetStructField(child, _, Some(name)) => unapply(child).map(_ :+ name)
    case g @ GetStructField(child, ordinal, None) =>
      unapply(child).map(_ :+ g.childSchema(ordinal).name)
    case _ => None
  }
}
