package txlog.sql

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{
  Assignment,
  InsertAction,
  InsertStarAction,
  LogicalPlan,
  MergeAction,
  MergeIntoTable,
  UpdateAction,
  UpdateStarAction,
  UpdateTable
}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

import txlog.protocol.{IdentityColumn, IdentityColumns}
import txlog.write.IdentityWrites

/** The identity columns of a txlog table in an `UPDATE` or `MERGE INTO`, as delta-spark treats
  * them: a statement that sets one (`UPDATE ... SET id = ...`, a MERGE's `UPDATE SET id = ...` or
  * `UPDATE SET *`) or inserts values into a `GENERATED ALWAYS` one is IDENTITY_COLUMN_VIOLATION
  * before anything runs; a MERGE's `INSERT` that leaves one out gets it generated
  * ([[txlog.write.IdentityValues]]), and the MERGE's commit raises the column's high water mark.
  * `INSERT *` is refused on a table with identity columns, as delta-spark refuses it: the source's
  * columns are not known before Spark resolves the statement, so txlog cannot tell whether it gives
  * the column; naming the columns (leaving the identity column out) is the way. A MERGE that
  * evolves the schema has its stars named already ([[MergeEvolution]]).
  *
  * {{{
  * IdentityAssignments.added(spark, root, plan, snapshot.metadata.schema)
  * }}}
  */
private[txlog] object IdentityAssignments {

  /** `dml` (an [[UpdateTable]] or [[MergeIntoTable]] of the table at `table`, of `schema`, as
    * parsed) with generated values for the identity columns its inserts leave out; any other plan
    * as it is.
    */
  def added(
      spark: SparkSession,
      table: String,
      dml: LogicalPlan,
      schema: StructType
  ): LogicalPlan = {
    val columns = IdentityColumns.of(table, schema)
    if (columns.isEmpty) dml
    else {
      val resolver = SQLConf.get.resolver
      def named(key: Expression): Option[IdentityColumn] = key match {
        // `col`, or qualified (`t.col`): an identity column is top-level, its name comes last;
        // `s.col` with `s` a column of the table is a field of that struct
        case UnresolvedAttribute(parts) =>
          val field = parts.size > 1 && schema.fieldNames.exists(resolver(_, parts(parts.size - 2)))
          if (field) None else columns.find(c => resolver(c.name, parts.last))
        case _ => None
      }
      def noUpdates(assignments: Seq[Assignment]): Unit =
        assignments.flatMap(a => named(a.key)).headOption.foreach { c =>
          IdentityWrites.update(table, c.name)
        }
      def each(actions: Seq[MergeAction]): Seq[MergeAction] = actions.map {
        case a: UpdateAction => noUpdates(a.assignments); a
        case _: UpdateStarAction =>
          IdentityWrites.update(table, columns.map(_.name).mkString(", "))
        case _: InsertStarAction =>
          IdentityWrites.insertStar(table, columns.head.name)
        case a: InsertAction =>
          // values generated already (this, run again on its own output) are not given ones
          val generated = a.assignments.collect {
            case x if x.value.isInstanceOf[txlog.write.IdentityValues] => named(x.key)
          }.flatten
          val supplied = a.assignments
            .filterNot(_.value.isInstanceOf[txlog.write.IdentityValues])
            .flatMap(x => named(x.key))
          supplied.find(!_.allowExplicitInsert).foreach { c =>
            IdentityWrites.explicitInsert(table, c.name)
          }
          val left = columns.filterNot(c => (supplied ++ generated).exists(_.name == c.name))
          a.copy(assignments = a.assignments ++ left.map { c =>
            Assignment(UnresolvedAttribute(Seq(c.name)), IdentityWrites.generator(spark, table, c))
          })
        case other => other
      }
      dml match {
        case u: UpdateTable => noUpdates(u.assignments); u
        case m: MergeIntoTable =>
          m.copy(
            matchedActions = each(m.matchedActions.toSeq),
            notMatchedActions = each(m.notMatchedActions.toSeq),
            notMatchedBySourceActions = each(m.notMatchedBySourceActions.toSeq)
          )
        case other => other
      }
    }
  }
}
