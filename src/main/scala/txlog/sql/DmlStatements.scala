package txlog.sql

import java.util.UUID

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.spark.sql.{AnalysisException, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.analysis.{UnresolvedAttribute, UnresolvedRelation}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, MergeIntoTable}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.txlog.SparkPlans

import txlog.errors.TxlogErrors
import txlog.table.TableContext
import txlog.util.Jobs

/** `DeltaLog.update` and `DeltaLog.merge`: the statement SQL's `UPDATE` / `MERGE INTO` would be,
  * run through the same row-level operation ([[RowLevelDv]]) on a table that needs no catalog.
  *
  * The statement is parsed by the session's parser from a skeleton whose every expression, column
  * and table is a placeholder; the caller's expressions are each parsed alone (so none can reach
  * into the statement around it) and put in place of theirs, the table's placeholder becomes a
  * relation over a [[TxlogTable]] at the latest snapshot and the source's the source DataFrame's
  * plan. Spark then analyzes and rewrites it as for SQL, and the table hands its commit to a
  * [[DmlCapture]] the call reads back.
  *
  * {{{
  * DmlStatements.update(ctx, Some("id = 7"), Seq("status" -> "'closed'"))
  * }}}
  */
private[txlog] object DmlStatements {

  /** A MERGE clause: `kind` one of [[Kinds]], its condition, and its assignments (column, SQL
    * expression); None for `UPDATE SET *` / `INSERT *`, empty for a delete.
    */
  final case class Clause(
      kind: String,
      condition: Option[String],
      set: Option[Seq[(String, String)]]
  )

  val MatchedUpdate = "matched_update"
  val MatchedDelete = "matched_delete"
  val NotMatchedInsert = "not_matched_insert"
  val BySourceUpdate = "not_matched_by_source_update"
  val BySourceDelete = "not_matched_by_source_delete"
  val Kinds: Seq[String] =
    Seq(MatchedUpdate, MatchedDelete, NotMatchedInsert, BySourceUpdate, BySourceDelete)

  /** Runs `UPDATE table SET set [WHERE condition]`; None when nothing was committed. */
  def update(
      ctx: TableContext,
      condition: Option[String],
      set: Seq[(String, String)]
  ): (Long, Option[DmlCapture.Outcome]) = {
    if (set.isEmpty) throw TxlogErrors.invalidArgument("set", "names no column to update")
    val h = new Holes(ctx.spark)
    val where = condition.map(c => s" WHERE ${h.expr("condition", c)}").getOrElse("")
    run(ctx, "UPDATE", h, None, () => ()) { t =>
      s"UPDATE $t SET ${assignments(h, "set", set)}$where"
    }
  }

  /** Runs `MERGE INTO table AS targetAlias USING source ON condition` with `clauses` in order;
    * `beforeCommit` runs once the tasks have written, before the commit (for racing tests).
    */
  def merge(
      ctx: TableContext,
      source: DataFrame,
      condition: String,
      targetAlias: String,
      clauses: Seq[Clause],
      beforeCommit: () => Unit = () => (),
      schemaEvolution: Boolean = false
  ): (Long, Option[DmlCapture.Outcome]) = {
    if (source == null) throw TxlogErrors.invalidArgument("source", "is null")
    if (clauses.isEmpty) {
      throw TxlogErrors.invalidArgument("merge", "has no WHEN clause: nothing to do")
    }
    val h = new Holes(ctx.spark)
    val on = h.expr("condition", condition)
    val alias = h.alias("target_alias", targetAlias)
    val whens = clauses.map(clause(h, _))
    // as delta-spark's: the schema evolves for the clauses that take the source's columns (`*`)
    val evolves = schemaEvolution && clauses.exists(c => c.set.isEmpty)
    run(ctx, "MERGE", h, Some(source), beforeCommit, evolves) { t =>
      s"MERGE INTO $t AS $alias USING ${h.source} ON $on ${whens.mkString(" ")}"
    }
  }

  private def clause(h: Holes, c: Clause): String = {
    val arg = s"${c.kind}.condition"
    val cond = c.condition.map(e => s" AND ${h.expr(arg, e)}").getOrElse("")
    def set = c.set.map(s => s"SET ${assignments(h, s"${c.kind}.set", s)}").getOrElse("SET *")
    if (c.kind.endsWith("_delete") && c.set.exists(_.nonEmpty)) {
      throw TxlogErrors.invalidArgument(s"${c.kind}.set", "a delete sets no column")
    }
    c.kind match {
      case MatchedUpdate  => s"WHEN MATCHED$cond THEN UPDATE $set"
      case MatchedDelete  => s"WHEN MATCHED$cond THEN DELETE"
      case BySourceUpdate => s"WHEN NOT MATCHED BY SOURCE$cond THEN UPDATE $set"
      case BySourceDelete => s"WHEN NOT MATCHED BY SOURCE$cond THEN DELETE"
      case NotMatchedInsert =>
        c.set match {
          case None => s"WHEN NOT MATCHED$cond THEN INSERT *"
          case Some(v) =>
            val arg = s"${c.kind}.values"
            if (v.isEmpty) throw TxlogErrors.invalidArgument(arg, "names no column to insert")
            val cols = v.map { case (k, _) => h.column(arg, k) }
            val values = v.map { case (_, e) => h.expr(arg, e) }
            s"WHEN NOT MATCHED$cond THEN INSERT (${cols.mkString(", ")}) " +
              s"VALUES (${values.mkString(", ")})"
        }
      case other =>
        throw TxlogErrors.invalidArgument(
          "clause",
          s"'$other' is not one of ${Kinds.mkString(", ")}"
        )
    }
  }

  private def assignments(h: Holes, arg: String, set: Seq[(String, String)]): String = {
    if (set.isEmpty) throw TxlogErrors.invalidArgument(arg, "names no column to update")
    set.map { case (k, e) => s"${h.column(arg, k)} = ${h.expr(arg, e)}" }.mkString(", ")
  }

  private def run(
      ctx: TableContext,
      op: String,
      h: Holes,
      source: Option[DataFrame],
      beforeCommit: () => Unit,
      schemaEvolution: Boolean = false
  )(statement: String => String): (Long, Option[DmlCapture.Outcome]) = {
    val spark = ctx.spark
    val snap = ctx.snapshots.update()
    val capture = new DmlCapture(beforeCommit)
    val plain = new TxlogTable(s"txlog.`${ctx.root}`", snap, Some(capture))
    // a MERGE's schema evolution: the table under the source's columns it lacks (MergeEvolution)
    val evolved = source.filter(_ => schemaEvolution).flatMap { s =>
      MergeEvolution.evolved(snap.metadata, s.schema)
    }
    val table = evolved.fold(plain)(plain.evolvedTo)
    val relation = DataSourceV2Relation.create(table, None, None)
    // every caller's text is in a placeholder: what fails to parse here is the clauses' order
    // (Spark's rule: of each kind of clause only the last may go without a condition)
    val parsed =
      try SparkPlans.parser(spark).parsePlan(statement(h.target))
      catch {
        case NonFatal(e) if e.getClass.getName.contains("ParseException") =>
          throw TxlogErrors.invalidArgument(op.toLowerCase, e.getMessage)
      }
    // the generated columns the statement changes, computed as delta-spark's
    val filled = h.fill(parsed, relation, source.map(_.queryExecution.analyzed)) match {
      case m: MergeIntoTable if schemaEvolution =>
        val out = source.get.queryExecution.analyzed.output.map { a =>
          (a.name, a.dataType, a: Expression)
        }
        MergeEvolution.expanded(m, table.schema(), out)
      case other => other
    }
    val plan = GeneratedAssignments.added(
      IdentityAssignments.added(spark, ctx.root, filled, table.metadata.schema),
      table.metadata.schema,
      SparkPlans.parser(spark).parseExpression
    )
    try SparkPlans.analyzed(spark, plan)
    catch {
      case e: AnalysisException =>
        throw TxlogErrors.invalidArgument(op.toLowerCase, s"${e.getMessage}")
    }
    Jobs.named(spark, s"$op ${ctx.root}")(SparkPlans.dataFrame(spark, plan))
    (snap.version, capture.outcome)
  }

  /** The placeholders of one statement and what goes in their place. */
  private final class Holes(spark: SparkSession) {
    private val tag = "__txlog_" + UUID.randomUUID().toString.replace("-", "")
    private val filled = mutable.LinkedHashMap.empty[String, Expression]
    private val parser = SparkPlans.parser(spark)

    val target: String = s"`${tag}_target`"
    val source: String = s"`${tag}_source`"

    private def hole(e: Expression): String = {
      val name = s"${tag}_${filled.size}"
      filled(name) = e
      s"`$name`"
    }

    /** `text` parsed alone as an expression, or INVALID_ARGUMENT naming `arg`. */
    def expr(arg: String, text: String): String = hole(parse(arg, text)(parser.parseExpression))

    /** `text` parsed as a column name (`a`, `a.b`, `` `a b` ``). */
    def column(arg: String, text: String): String =
      hole(UnresolvedAttribute(parse(arg, text)(parser.parseMultipartIdentifier)))

    /** `text` as one identifier, quoted. */
    def alias(arg: String, text: String): String =
      parse(arg, text)(parser.parseMultipartIdentifier) match {
        case Seq(one) => s"`${one.replace("`", "``")}`"
        case _        => throw TxlogErrors.invalidArgument(arg, s"'$text' is not one identifier")
      }

    private def parse[T](arg: String, text: String)(p: String => T): T = {
      if (text == null || text.trim.isEmpty) {
        throw TxlogErrors.invalidArgument(arg, "must be a non-empty SQL text")
      }
      try p(text)
      catch {
        case NonFatal(e) if e.getClass.getName.contains("ParseException") =>
          throw TxlogErrors.invalidArgument(arg, s"'$text' does not parse: ${e.getMessage}")
      }
    }

    /** `plan` with the placeholders filled: the table, the source and every expression. */
    def fill(plan: LogicalPlan, table: LogicalPlan, src: Option[LogicalPlan]): LogicalPlan = {
      val t = s"${tag}_target"
      val s = s"${tag}_source"
      val related = plan.transformUp {
        case u: UnresolvedRelation if u.multipartIdentifier == Seq(t)                  => table
        case u: UnresolvedRelation if u.multipartIdentifier == Seq(s) && src.isDefined => src.get
      }
      related.transformAllExpressions {
        case a: UnresolvedAttribute
            if a.nameParts.length == 1 && filled.contains(a.nameParts.head) =>
          filled(a.nameParts.head)
      }
    }
  }
}
