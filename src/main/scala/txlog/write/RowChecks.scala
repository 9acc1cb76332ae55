package txlog.write

import java.util.Locale

import scala.util.Try
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.{coalesce, col, expr, lit}
import org.apache.spark.sql.types.{DataType, StructField, StructType}

import txlog.{Metadata, TxlogErrors}

/** What every written row must satisfy, evaluated by the write job itself as it writes (a false or
  * null result fails the job with CONSTRAINT_VIOLATION naming the constraint and the row's values,
  * before anything is committed): NOT NULL columns, the table's CHECK constraints
  * (`delta.constraints.<name>`), column invariants (`delta.invariants`), generated columns (the
  * value written equals the generation expression's) and a write's `replaceWhere`.
  *
  * @param name
  *   how the error names it (`CHECK positive (id > 0)`)
  * @param condition
  *   the SQL of the condition, over the table's columns
  */
private[txlog] final case class RowCheck(name: String, condition: String)

private[txlog] object RowChecks {

  /** The column name prefix of the check columns a write job receives after the table's columns. */
  val Prefix = "__txlog_check_"

  /** The checks of table metadata `md`. */
  def of(md: Metadata): Seq[RowCheck] = {
    val notNull = md.schema.fields.toSeq.filter(!_.nullable).map { f =>
      RowCheck(s"NOT NULL ${f.name}", s"${quote(f.name)} IS NOT NULL")
    }
    val checks = md.configuration.toSeq.sortBy(_._1).collect {
      case (k, v) if k.toLowerCase(Locale.ROOT).startsWith("delta.constraints.") =>
        RowCheck(s"CHECK ${k.drop("delta.constraints.".length)} ($v)", v)
    }
    val invariants = fields(md.schema, Nil).flatMap { case (path, f) =>
      if (!f.metadata.contains("delta.invariants")) None
      else {
        val sql = invariantSql(f.metadata.getString("delta.invariants"))
        Some(RowCheck(s"INVARIANT ${path.mkString(".")} ($sql)", sql))
      }
    }
    val generated = md.schema.fields.toSeq
      .filter(_.metadata.contains("delta.generationExpression"))
      .map { f =>
        val g = f.metadata.getString("delta.generationExpression")
        RowCheck(s"GENERATED ${f.name} ($g)", s"${quote(f.name)} <=> ($g)")
      }
    notNull ++ checks ++ invariants ++ generated
  }

  /** `df` with one boolean column per check appended (named [[Prefix]]`i`): true where the row
    * passes. A condition that does not parse or resolve on the table's columns is INVALID_METADATA
    * (a table property or field metadata txlog cannot evaluate), before anything is written.
    */
  def withChecks(table: String, df: DataFrame, checks: Seq[RowCheck]): DataFrame = {
    val cols = checks.zipWithIndex.map { case (c, i) =>
      val condition =
        try expr(c.condition)
        catch { case NonFatal(e) => throw TxlogErrors.uncheckableConstraint(table, bad(c, e)) }
      coalesce(condition.cast("boolean"), lit(false)).as(s"$Prefix$i")
    }
    try {
      val out = df.select(df.columns.map(n => col(quote(n))).toSeq ++ cols: _*)
      out.schema // resolves now: an unknown column fails here, not in the job
      out
    } catch {
      case NonFatal(e) if checks.nonEmpty =>
        // the check that does not resolve, named (a column it reads was dropped or renamed)
        val culprit = checks.zip(cols).collectFirst {
          case (c, column) if Try(df.select(column).schema).isFailure => c.name
        }
        throw TxlogErrors.uncheckableConstraint(
          table,
          s"${culprit.getOrElse("A constraint")} does not resolve on the columns written " +
            s"(${df.columns.mkString(", ")}): ${e.getMessage}"
        )
    }
  }

  private def bad(c: RowCheck, e: Throwable): String =
    s"The condition of ${c.name} does not parse: ${e.getMessage}"

  /** An invariant's SQL: field metadata `{"expression": {"expression": "x > 3"}}`. */
  private def invariantSql(json: String): String = {
    val node = new ObjectMapper().readTree(json)
    Option(node.get("expression"))
      .flatMap(e => Option(e.get("expression")))
      .map(_.asText)
      .getOrElse(json)
  }

  private def fields(t: DataType, path: Seq[String]): Seq[(Seq[String], StructField)] =
    t match {
      case s: StructType =>
        s.fields.toSeq.flatMap(f => ((path :+ f.name) -> f) +: fields(f.dataType, path :+ f.name))
      case _ => Nil
    }

  def quote(name: String): String = "`" + name.replace("`", "``") + "`"
}
