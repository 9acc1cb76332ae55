package txlog.sql

import org.apache.spark.sql.{AnalysisException, SparkSession}
import org.apache.spark.sql.catalyst.analysis.{
  UnresolvedAttribute,
  UnresolvedExtractValue,
  UnresolvedRelation
}
import org.apache.spark.sql.catalyst.expressions.{Cast, CreateNamedStruct, Expression, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{
  Assignment,
  InsertAction,
  LogicalPlan,
  MergeAction,
  MergeIntoTable,
  SubqueryAlias,
  UpdateAction,
  UpdateTable
}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{StructField, StructType}

import txlog.DeltaLog

/** The generated columns (and, by [[IdentityAssignments]], the identity columns) of a txlog table
  * an `UPDATE` or `MERGE INTO` computes again, as delta-spark's: a generated column the statement
  * does not set, whose expression reads a column it sets, is set to that expression over the new
  * values; a MERGE's `INSERT` that leaves one out sets it to the expression over the inserted
  * values (null for the columns it leaves out too). Added to the statement as parsed, as explicit
  * assignments (Spark aligns and rewrites a row-level statement within one analyzer pass from 4.1
  * on, before any rule of an extension can see it aligned). A column the statement sets keeps its
  * value, which the write checks against the expression ([[txlog.write.RowChecks]]), as it checks
  * the computed ones.
  *
  * A generated column whose expression reads a column the statement sets nested fields of gets the
  * expression over the struct with those fields set. Not computed, so checked only: the columns
  * `UPDATE SET *` / `INSERT *` take from the source (a MERGE that evolves the schema names them,
  * and they are computed then).
  *
  * {{{
  * GeneratedAssignments.added(plan, snapshot.metadata.schema, parser.parseExpression)
  * }}}
  */
private[txlog] object GeneratedAssignments {

  private val Key = "delta.generationExpression"

  /** `plan` (as parsed) with the generated columns of each UPDATE and MERGE of a txlog table set
    * where they change. A target that is not a txlog table, or that does not resolve, is left to
    * Spark's analysis and its errors; a storage failure reading the table fails here.
    */
  def ofParsed(spark: SparkSession, plan: LogicalPlan, parse: String => Expression): LogicalPlan =
    if (!plan.exists(p => p.isInstanceOf[UpdateTable] || p.isInstanceOf[MergeIntoTable])) plan
    else {
      // a MERGE evolving the schema has its target resolved already (MergeEvolution)
      def schemaOf(target: LogicalPlan): Option[(String, StructType)] = target
        .collectFirst {
          case r: DataSourceV2Relation if r.table.isInstanceOf[TxlogTable] =>
            val t = r.table.asInstanceOf[TxlogTable]
            Right((t.snapshot.tablePath, t.metadata.schema))
          case r: UnresolvedRelation => Left(r.multipartIdentifier)
        }
        .flatMap {
          case Right(found) => Some(found)
          case Left(parts) =>
            try {
              TxlogSqlTables.pathOf(spark, parts).map { p =>
                val snap = DeltaLog.forTable(spark, p).update()
                (snap.tablePath, snap.metadata.schema)
              }
            } catch { case _: AnalysisException => None } // no such table: Spark's error
        }
      // identity columns first: their values generated where an INSERT leaves them out
      def both(dml: LogicalPlan, root: String, schema: StructType): LogicalPlan =
        added(IdentityAssignments.added(spark, root, dml, schema), schema, parse)
      plan.resolveOperatorsDown {
        case u: UpdateTable => schemaOf(u.table).fold(u: LogicalPlan)(t => both(u, t._1, t._2))
        case m: MergeIntoTable =>
          schemaOf(m.targetTable).fold(m: LogicalPlan)(t => both(m, t._1, t._2))
      }
    }

  /** `dml` (an [[UpdateTable]] or [[MergeIntoTable]] of a table of `schema`, as parsed) with the
    * assignments of the generated columns it changes; any other plan as it is.
    */
  def added(dml: LogicalPlan, schema: StructType, parse: String => Expression): LogicalPlan = {
    val generated = schema.fields.toSeq.filter(_.metadata.contains(Key))
    if (generated.isEmpty) dml
    else {
      dml match {
        case u: UpdateTable =>
          val c = new Columns(schema, generated, qualifier(u.table), parse)
          u.copy(assignments = c.updated(u.assignments))
        case m: MergeIntoTable =>
          val c = new Columns(schema, generated, qualifier(m.targetTable), parse)
          def each(actions: Seq[MergeAction]): Seq[MergeAction] = actions.map {
            case a: UpdateAction => a.copy(assignments = c.updated(a.assignments))
            case a: InsertAction => a.copy(assignments = c.inserted(a.assignments))
            case other           => other
          }
          m.copy(
            matchedActions = each(m.matchedActions.toSeq),
            notMatchedActions = each(m.notMatchedActions.toSeq),
            notMatchedBySourceActions = each(m.notMatchedBySourceActions.toSeq)
          )
        case other => other
      }
    }
  }

  /** The name the statement's target goes by: its alias, or its name as written. */
  private def qualifier(target: LogicalPlan): Seq[String] = target match {
    case SubqueryAlias(id, _)  => id.qualifier :+ id.name
    case r: UnresolvedRelation => r.multipartIdentifier
    case _                     => Nil
  }

  private final class Columns(
      schema: StructType,
      generated: Seq[StructField],
      qualifier: Seq[String],
      parse: String => Expression
  ) {
    private val resolver = SQLConf.get.resolver

    private def column(name: String): Option[String] =
      schema.fields.find(f => resolver(f.name, name)).map(_.name)

    /** The column an assignment's key names and the nested fields below it (None when it names none
      * of the table's: Spark's analysis reports it).
      */
    private def target(key: Expression): Option[(String, Seq[String])] = key match {
      case UnresolvedAttribute(parts) =>
        // `col`, `col.field`, or qualified: `alias.col...`, `db.table.col...`
        (0 until parts.size).iterator
          .filter { i =>
            val q = parts.take(i)
            q.size <= qualifier.size &&
            q.zip(qualifier.takeRight(q.size)).forall { case (a, b) => resolver(a, b) }
          }
          .flatMap(i => column(parts(i)).map(c => (c, parts.drop(i + 1))))
          .toSeq
          .headOption
      case _ => None
    }

    private def expression(g: StructField): Expression = parse(g.metadata.getString(Key))

    /** The top-level columns `e` reads. */
    private def reads(e: Expression): Set[String] =
      e.collect { case UnresolvedAttribute(parts) => column(parts.head) }.flatten.toSet

    /** `e` with each column it reads replaced by `value` of it. */
    private def over(e: Expression, value: String => Expression): Expression = e.transformUp {
      case UnresolvedAttribute(parts) if column(parts.head).isDefined =>
        parts.tail.foldLeft(value(column(parts.head).get)) { (v, f) =>
          UnresolvedExtractValue(v, Literal(f))
        }
    }

    private def assignment(g: StructField, value: Expression): Assignment =
      Assignment(UnresolvedAttribute(Seq(g.name)), Cast(value, g.dataType))

    /** An UPDATE's assignments, and those of the generated columns whose columns they set. A column
      * the statement sets fields of (`SET s.a = 1`) is, to the expression, the struct with those
      * fields set and the others the row's, as Spark writes it.
      */
    def updated(assignments: Seq[Assignment]): Seq[Assignment] = {
      val targets = assignments.map(a => target(a.key))
      val whole = targets
        .zip(assignments)
        .collect { case (Some((c, Seq())), a) =>
          c -> a.value
        }
        .toMap
      val nested = targets
        .zip(assignments)
        .collect {
          case (Some((c, rest)), a) if rest.nonEmpty && !whole.contains(c) =>
            c -> (rest, a.value)
        }
        .groupBy(_._1)
        .map { case (c, sets) => c -> rebuilt(c, sets.map(_._2)) }
      val values = whole ++ nested.collect { case (c, Some(v)) => c -> v }
      val set = targets.flatten.map(_._1).toSet
      val more = generated.filterNot(g => set.contains(g.name)).flatMap { g =>
        val e = expression(g)
        val read = reads(e)
        // a struct txlog cannot rebuild (a field path through an array, say): checked only
        val unknown = nested.collect { case (c, None) => c }.toSet
        if (read.intersect(values.keySet).isEmpty || read.intersect(unknown).nonEmpty) None
        else {
          Some(
            assignment(g, over(e, c => values.getOrElse(c, UnresolvedAttribute(qualifier :+ c))))
          )
        }
      }
      assignments ++ more
    }

    /** Column `c`'s new value after `sets` (field path, value) of its nested fields: its struct
      * with those set and the rest the row's; None when a path does not go through structs.
      */
    private def rebuilt(c: String, sets: Seq[(Seq[String], Expression)]): Option[Expression] = {
      def build(
          t: StructType,
          base: Expression,
          sets: Seq[(Seq[String], Expression)]
      ): Option[Expression] = {
        val known = sets.forall(s => t.fields.exists(f => resolver(f.name, s._1.head)))
        if (!known) None
        else {
          val fields = t.fields.toSeq.map { f =>
            val here = sets.filter(s => resolver(s._1.head, f.name))
            val old: Expression = UnresolvedExtractValue(base, Literal(f.name))
            here.find(_._1.size == 1) match {
              case Some((_, v))         => Some(Seq(Literal(f.name), Cast(v, f.dataType)))
              case None if here.isEmpty => Some(Seq(Literal(f.name), old))
              case None =>
                f.dataType match {
                  case st: StructType =>
                    build(st, old, here.map(s => (s._1.tail, s._2))).map(Seq(Literal(f.name), _))
                  case _ => None
                }
            }
          }
          if (fields.exists(_.isEmpty)) None else Some(CreateNamedStruct(fields.flatten.flatten))
        }
      }
      schema(c).dataType match {
        case st: StructType => build(st, UnresolvedAttribute(qualifier :+ c), sets)
        case _              => None
      }
    }

    /** A MERGE's INSERT assignments, and those of the generated columns it leaves out. */
    def inserted(assignments: Seq[Assignment]): Seq[Assignment] = {
      val values = assignments.flatMap(a => target(a.key).map(_._1 -> a.value)).toMap
      val more = generated.filterNot(g => values.contains(g.name)).map { g =>
        assignment(g, over(expression(g), c => values.getOrElse(c, Literal(null))))
      }
      assignments ++ more
    }
  }
}
