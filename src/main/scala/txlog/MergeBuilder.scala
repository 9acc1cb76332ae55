package txlog

import org.apache.spark.sql.DataFrame

import txlog.errors.TxlogErrors
import txlog.sql.DmlStatements
import txlog.sql.DmlStatements.Clause
import txlog.table.TableContext

/** A MERGE of a source DataFrame into a table, built clause by clause as delta-spark's
  * `DeltaTable.merge` and run by [[execute]] as SQL's `MERGE INTO` is (the same row-level
  * operation, commit and errors). Conditions and values are SQL expressions over the target (by its
  * alias, `target` unless `DeltaLog.merge` names another) and the source (by the DataFrame's own
  * alias, `source.as("s")`, or unqualified). Clauses are tried in the order given. Each call
  * returns a new builder.
  *
  * {{{
  * log.merge(updates.as("s"), "target.id = s.id")
  *   .whenMatched("s.deleted").delete()
  *   .whenMatched().updateAll()
  *   .whenNotMatched().insertAll()
  *   .whenNotMatchedBySource("target.day < '2024-01-01'").delete()
  *   .execute()
  * }}}
  */
final class MergeBuilder private[txlog] (
    ctx: TableContext,
    source: DataFrame,
    condition: String,
    targetAlias: String,
    clauses: Vector[Clause],
    schemaEvolution: Boolean = false
) {

  private[txlog] def add(c: Clause): MergeBuilder =
    new MergeBuilder(ctx, source, condition, targetAlias, clauses :+ c, schemaEvolution)

  /** Evolves the table's schema as delta-spark's `withSchemaEvolution()`: with an `updateAll` or
    * `insertAll` clause, the source's top-level columns the table lacks are added to it (nullable,
    * at the end) in the MERGE's commit; those clauses then set the source's columns only (a target
    * column the source lacks is kept by `updateAll`, null for `insertAll`). Example: `log.merge(s,
    * "target.id = s.id").withSchemaEvolution().whenMatched().updateAll().execute()`.
    */
  def withSchemaEvolution(): MergeBuilder =
    new MergeBuilder(ctx, source, condition, targetAlias, clauses, schemaEvolution = true)

  /** Target rows the source matches (and `condition`, when given). Example: `b.whenMatched("s.op =
    * 'd'").delete()`.
    */
  def whenMatched(condition: String): MergeMatched = new MergeMatched(this, Some(condition))

  /** Every target row the source matches. Example: `b.whenMatched().updateAll()`. */
  def whenMatched(): MergeMatched = new MergeMatched(this, None)

  /** Source rows no target row matches (and `condition`). Example: `b.whenNotMatched("s.op <>
    * 'd'").insertAll()`.
    */
  def whenNotMatched(condition: String): MergeNotMatched =
    new MergeNotMatched(this, Some(condition))

  /** Every source row no target row matches. Example: `b.whenNotMatched().insertAll()`. */
  def whenNotMatched(): MergeNotMatched = new MergeNotMatched(this, None)

  /** Target rows no source row matches (and `condition`). Example:
    * `b.whenNotMatchedBySource("target.day < '2024-01-01'").delete()`.
    */
  def whenNotMatchedBySource(condition: String): MergeNotMatchedBySource =
    new MergeNotMatchedBySource(this, Some(condition))

  /** Every target row no source row matches. Example: `b.whenNotMatchedBySource().delete()`. */
  def whenNotMatchedBySource(): MergeNotMatchedBySource = new MergeNotMatchedBySource(this, None)

  /** Runs the MERGE: one `MERGE` commit (none when nothing changes; a MERGE of `whenNotMatched`
    * clauses only is an append, a `WRITE` commit). INVALID_ARGUMENT for an expression that does not
    * parse or resolve, or no clause; a source row matching two target rows fails with Spark's
    * MERGE_CARDINALITY_VIOLATION and nothing is committed; the tables SQL's MERGE refuses are
    * refused alike, before anything is written.
    *
    * {{{
    * val r = log.merge(updates, "target.id = id").whenMatched().updateAll().execute()
    * println(s"${r.numUpdatedRows} rows updated in v${r.version}")
    * }}}
    */
  def execute(): MergeResult = {
    val (read, outcome) = DmlStatements.merge(
      ctx,
      source,
      condition,
      targetAlias,
      clauses,
      schemaEvolution = schemaEvolution
    )
    outcome.fold(MergeResult(read, committed = false, 0L, 0L, 0L, 0L, 0L)) { o =>
      MergeResult(
        o.commit.version,
        o.commit.committed,
        numUpdatedRows = o.count("numTargetRowsUpdated"),
        numDeletedRows = o.count("numTargetRowsDeleted"),
        numInsertedRows = o.count("numTargetRowsInserted"),
        numAddedFiles = o.count("numTargetFilesAdded"),
        numRemovedFiles = o.count("numTargetFilesRemoved")
      )
    }
  }
}

private[txlog] object MergeBuilder {
  def assignments(arg: String, set: Map[String, String]): Option[Seq[(String, String)]] = {
    if (set == null) throw TxlogErrors.invalidArgument(arg, "is null")
    Some(set.toSeq)
  }
}

/** The action of a `whenMatched` clause of a [[MergeBuilder]]. */
final class MergeMatched private[txlog] (b: MergeBuilder, condition: Option[String]) {

  /** Sets the columns named (`a`, or `a.b` for a nested field) to SQL expressions. Example:
    * `.whenMatched().update(Map("count" -> "target.count + s.count"))`.
    */
  def update(set: Map[String, String]): MergeBuilder = b.add(
    Clause(DmlStatements.MatchedUpdate, condition, MergeBuilder.assignments("set", set))
  )

  /** Sets every column of the target to the source's column of that name (`UPDATE SET *`). Example:
    * `.whenMatched().updateAll()`.
    */
  def updateAll(): MergeBuilder = b.add(Clause(DmlStatements.MatchedUpdate, condition, None))

  /** Deletes the matched target row. Example: `.whenMatched("s.deleted").delete()`. */
  def delete(): MergeBuilder = b.add(Clause(DmlStatements.MatchedDelete, condition, Some(Nil)))
}

/** The action of a `whenNotMatched` clause of a [[MergeBuilder]]. */
final class MergeNotMatched private[txlog] (b: MergeBuilder, condition: Option[String]) {

  /** Inserts a row of the columns named, set to SQL expressions over the source (the others null or
    * their default). Example: `.whenNotMatched().insert(Map("id" -> "s.id", "n" -> "1"))`.
    */
  def insert(values: Map[String, String]): MergeBuilder = b.add(
    Clause(DmlStatements.NotMatchedInsert, condition, MergeBuilder.assignments("values", values))
  )

  /** Inserts the source row as it is (`INSERT *`). Example: `.whenNotMatched().insertAll()`. */
  def insertAll(): MergeBuilder = b.add(Clause(DmlStatements.NotMatchedInsert, condition, None))
}

/** The action of a `whenNotMatchedBySource` clause of a [[MergeBuilder]]. */
final class MergeNotMatchedBySource private[txlog] (b: MergeBuilder, condition: Option[String]) {

  /** Sets the columns named to SQL expressions over the target. Example:
    * `.whenNotMatchedBySource().update(Map("active" -> "false"))`.
    */
  def update(set: Map[String, String]): MergeBuilder = b.add(
    Clause(DmlStatements.BySourceUpdate, condition, MergeBuilder.assignments("set", set))
  )

  /** Deletes the target row. Example: `.whenNotMatchedBySource().delete()`. */
  def delete(): MergeBuilder = b.add(Clause(DmlStatements.BySourceDelete, condition, Some(Nil)))
}
