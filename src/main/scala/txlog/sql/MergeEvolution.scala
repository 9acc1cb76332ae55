package txlog.sql

import java.util.Locale

import org.apache.spark.sql.{AnalysisException, SparkSession}
import org.apache.spark.sql.catalyst.AliasIdentifier
import org.apache.spark.sql.catalyst.analysis.{UnresolvedAttribute, UnresolvedRelation}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{
  Assignment,
  InsertAction,
  InsertStarAction,
  LogicalPlan,
  MergeAction,
  MergeIntoTable,
  SubqueryAlias,
  UpdateAction,
  UpdateStarAction
}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.txlog.{SessionCatalogs, SparkPlans}
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructField, StructType}

import txlog.{DeltaLog, Metadata}
import txlog.scan.PhysicalSchema
import txlog.txn.WriterRules
import txlog.write.TableSchemaCheck

/** A MERGE's schema evolution, as delta-spark's: with `MERGE WITH SCHEMA EVOLUTION` (Spark 4.0 and
  * later), delta-spark's session setting `spark.databricks.delta.schema.autoMerge.enabled`, or
  * `MergeBuilder.withSchemaEvolution()`, the source's top-level columns the table lacks are added
  * to it (nullable, at the end, column mapping ids and physical names given) when the MERGE has an
  * `UPDATE SET *` or `INSERT *` clause, in the MERGE's own commit. Those clauses then set the
  * source's columns only: `UPDATE SET *` keeps a target column the source lacks, `INSERT *` leaves
  * it null (or its generated value).
  *
  * Fields a source struct has that the table's struct lacks are added to it too (structs in
  * structs, at any depth); a source struct that lacks some of the table's fields sets them null in
  * `INSERT *` and keeps the row's values in `UPDATE SET *`. The structs of array elements and map
  * values evolve alike; their fields the source lacks are null in both clauses (an element has no
  * row value to keep).
  *
  * The statement is changed as parsed: its target becomes a relation over the table under the
  * evolved metadata ([[TxlogTable.evolvedTo]]), whose new columns and fields read as null and whose
  * write commits the metadata; its star clauses become the explicit assignments above.
  *
  * {{{
  * spark.sql("MERGE WITH SCHEMA EVOLUTION INTO txlog.db.t USING s ON t.id = s.id " +
  *   "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
  * }}}
  */
private[txlog] object MergeEvolution {

  /** delta-spark's session setting for schema evolution of writes and MERGE. */
  val AutoMerge = "spark.databricks.delta.schema.autoMerge.enabled"

  /** Whether `m` asks for schema evolution (its own words or the session's setting). */
  def requested(spark: SparkSession, m: MergeIntoTable): Boolean =
    SparkPlans.schemaEvolution(m) ||
      spark.conf.getOption(AutoMerge).exists(_.trim.equalsIgnoreCase("true"))

  /** Whether `m` has a clause taking the source's columns by name (`*`). */
  def starred(m: MergeIntoTable): Boolean = actions(m).exists {
    case _: UpdateStarAction | _: InsertStarAction => true
    case _                                         => false
  }

  private def actions(m: MergeIntoTable): Seq[MergeAction] =
    (m.matchedActions ++ m.notMatchedActions ++ m.notMatchedBySourceActions).toSeq

  /** `md` with the columns of `source` it lacks added, and the fields a source struct has that the
    * table's struct of the same name lacks (at any depth of structs in structs); None when it lacks
    * none. Other differences of type are left to the assignments' casts and Spark's checks.
    */
  def evolved(md: Metadata, source: StructType): Option[Metadata] = {
    val schema = merged(md.schema, source)
    if (schema == md.schema) None
    else {
      Some(
        WriterRules.withColumnMapping(Some(md), md.copy(schemaString = schema.json), schema, false)
      )
    }
  }

  /** `current` with the fields of `source` it lacks added at the end (nullable, logical names),
    * structs of both merged likewise.
    */
  private def merged(current: StructType, source: StructType): StructType = {
    def named(s: StructType, n: String) = s.fields.find(_.name.equalsIgnoreCase(n))
    val kept = current.fields.map { f =>
      named(source, f.name).fold(f)(s => f.copy(dataType = mergedType(f.dataType, s.dataType)))
    }
    val added = source.fields.filter(f => named(current, f.name).isEmpty)
    val fresh = TableSchemaCheck.nullable(
      PhysicalSchema.logical(StructType(added.map(f => StructField(f.name, f.dataType))))
    )
    StructType(kept ++ fresh.fields)
  }

  /** `current` with the struct fields `source` has that it lacks, in structs, array elements and
    * map values; any other type as it is.
    */
  private def mergedType(current: DataType, source: DataType): DataType = (current, source) match {
    case (c: StructType, s: StructType) => merged(c, s)
    case (c: ArrayType, s: ArrayType) =>
      c.copy(elementType = mergedType(c.elementType, s.elementType))
    case (c: MapType, s: MapType) => c.copy(valueType = mergedType(c.valueType, s.valueType))
    case _                        => current
  }

  /** `m` with its star clauses as explicit assignments of the `source` columns (name, type, value)
    * that `schema` (the target's, evolved) has. A source struct that lacks fields of the target's
    * struct is aligned to it by name ([[StructAlign]]): `UPDATE SET *` keeps the row's values of
    * the fields the source lacks, `INSERT *` writes them null, as delta-spark's.
    */
  def expanded(
      m: MergeIntoTable,
      schema: StructType,
      source: Seq[(String, DataType, Expression)]
  ): MergeIntoTable = {
    val byName = schema.fields.map(f => f.name.toLowerCase(Locale.ROOT) -> f).toMap
    val target = m.targetTable match {
      case SubqueryAlias(id, _) => id.qualifier :+ id.name
      case _                    => Nil
    }
    def set(update: Boolean) = source.flatMap { case (n, from, v) =>
      byName.get(n.toLowerCase(Locale.ROOT)).map { c =>
        val old = if (update) Some(UnresolvedAttribute(target :+ c.name)) else None
        Assignment(UnresolvedAttribute(Seq(c.name)), StructAlign(v, from, c.dataType, old))
      }
    }
    def each(as: Seq[MergeAction]): Seq[MergeAction] = as.map {
      case a: UpdateStarAction => UpdateAction(a.condition, set(update = true))
      case a: InsertStarAction => InsertAction(a.condition, set(update = false))
      case other               => other
    }
    m.copy(
      matchedActions = each(m.matchedActions.toSeq),
      notMatchedActions = each(m.notMatchedActions.toSeq),
      notMatchedBySourceActions = each(m.notMatchedBySourceActions.toSeq)
    )
  }

  /** A parsed MERGE of a txlog table with schema evolution, evolved; any other plan as it is (a
    * target that does not resolve is left to Spark's analysis and its errors; a source that does
    * not resolve on its own, as a CTE's name, fails with Spark's error: the MERGE cannot evolve the
    * schema without its columns).
    */
  def ofParsed(spark: SparkSession, plan: LogicalPlan): LogicalPlan = plan match {
    case m: MergeIntoTable if starred(m) && requested(spark, m) =>
      val (alias, parts) = m.targetTable match {
        case SubqueryAlias(id, r: UnresolvedRelation) => (Some(id), r.multipartIdentifier)
        case r: UnresolvedRelation                    => (None, r.multipartIdentifier)
        case _                                        => (None, Nil)
      }
      // a target that is not a txlog table (or no table: Spark's analysis error) is Spark's to
      // resolve; a storage failure fails here. Once it is a txlog table, a source that does not
      // resolve alone fails here too, as it asks to evolve
      val path =
        try if (parts.isEmpty) None else TxlogSqlTables.pathOf(spark, parts)
        catch { case _: AnalysisException => None }
      val found = path.map { path =>
        val (catalog, ident) = SessionCatalogs.catalogAndIdentifier(spark, parts)
        val table = catalog.loadTable(ident) match {
          case t: TxlogTable => t
          case _ => new TxlogTable(parts.mkString("."), DeltaLog.forTable(spark, path).update())
        }
        (catalog, ident, table, SparkPlans.analyzed(spark, m.sourceTable).schema)
      }
      found.fold(plan) { case (catalog, ident, table, sourceSchema) =>
        val t = evolved(table.snapshot.metadata, sourceSchema).fold(table)(table.evolvedTo)
        val relation = DataSourceV2Relation.create(t, Some(catalog), Some(ident))
        val name = alias.getOrElse(
          AliasIdentifier(ident.name(), (catalog.name() +: ident.namespace().toSeq))
        )
        val qualifier = m.sourceTable match {
          case SubqueryAlias(id, _)  => id.qualifier :+ id.name
          case r: UnresolvedRelation => r.multipartIdentifier
          case _                     => Nil
        }
        val source = sourceSchema.fields.toSeq.map { f =>
          (f.name, f.dataType, UnresolvedAttribute(qualifier :+ f.name): Expression)
        }
        expanded(m.copy(targetTable = SubqueryAlias(name, relation)), t.schema(), source)
      }
    case other => other
  }
}
