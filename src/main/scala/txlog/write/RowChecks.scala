package txlog.write

import scala.util.Try
import scala.util.control.NonFatal

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{BindReferences, Expression}
import org.apache.spark.sql.catalyst.plans.logical.Project
import org.apache.spark.sql.functions.{coalesce, col, expr, lit}
import org.apache.spark.sql.types.{BooleanType, StructType}

import txlog.Metadata
import txlog.errors.TxlogErrors
import txlog.protocol.Constraints

/** What every written row must satisfy, evaluated by the write job itself as it writes (a false or
  * null result fails the job with CONSTRAINT_VIOLATION naming the constraint and the row's values,
  * before anything is committed): the table's CHECK constraints (`delta.constraints.<name>`),
  * column invariants (`delta.invariants`), generated columns (the value written equals the
  * generation expression's), CHAR / VARCHAR lengths ([[CharLimits]]) and a write's `replaceWhere`.
  * NOT NULL fields are checked by the task itself ([[NullChecks]]).
  *
  * @param name
  *   how the error names it (`CHECK positive (id > 0)`)
  * @param condition
  *   the SQL of the condition, over the table's columns
  */
private[txlog] final case class RowCheck(name: String, condition: String)

private[txlog] object RowChecks {

  /** The column name prefix of the check columns a write job receives after the table's columns
    * (found by position, so a table column may have this name too).
    */
  val Prefix = "__txlog_check_"

  /** The checks of table metadata `md` that are conditions (NOT NULL fields are checked by the
    * write task itself: [[NullChecks]]).
    */
  def of(table: String, md: Metadata): Seq[RowCheck] = {
    val constraints = Constraints.of(table, md).map(c => RowCheck(s"${c.name} (${c.sql})", c.sql))
    val generated = md.schema.fields.toSeq
      .filter(_.metadata.contains("delta.generationExpression"))
      .map { f =>
        val g = f.metadata.getString("delta.generationExpression")
        RowCheck(s"GENERATED ${f.name} ($g)", s"${quote(f.name)} <=> ($g)")
      }
    constraints ++ generated ++ CharLimits.of(md.schema)
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

  /** [[withChecks]]'s columns as expressions over rows of `schema` (bound by position), each true
    * where the row passes, for a writer handed Spark's rows one at a time (an UPDATE's or MERGE's
    * new rows, `txlog.sql.DvRowWriter`): resolved here, on the driver, as the session resolves them
    * (its time zone, its functions), so a check that does not resolve fails before any task runs.
    * Example: `RowChecks.bound(spark, root, md.schema, RowChecks.of(root, md))`.
    */
  def bound(
      spark: SparkSession,
      table: String,
      schema: StructType,
      checks: Seq[RowCheck]
  ): Seq[Expression] = if (checks.isEmpty) Nil
  else {
    val empty = spark.createDataFrame(java.util.Collections.emptyList[Row](), schema)
    withChecks(table, empty, checks).queryExecution.analyzed match {
      case p: Project =>
        p.projectList.takeRight(checks.size).map(BindReferences.bindReference(_, p.child.output))
      case other =>
        throw new IllegalStateException(s"the checks of $table resolved as ${other.nodeName}")
    }
  }

  /** `schema` followed by the boolean columns of `checks`: the rows a writer of [[bound]] checks
    * hands the data files' writer (`DataFiles.TaskSpec`).
    */
  def withCheckColumns(schema: StructType, checks: Seq[RowCheck]): StructType =
    checks.indices.foldLeft(schema)((s, i) => s.add(s"$Prefix$i", BooleanType, nullable = false))

  private def bad(c: RowCheck, e: Throwable): String =
    s"The condition of ${c.name} does not parse: ${e.getMessage}"

  def quote(name: String): String = "`" + name.replace("`", "``") + "`"
}
