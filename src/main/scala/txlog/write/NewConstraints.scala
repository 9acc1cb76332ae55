package txlog.write

import scala.util.control.NonFatal

import org.apache.spark.sql.Column
import org.apache.spark.sql.functions.{coalesce, col, expr, first, lit, struct, sum, to_json, when}
import org.apache.spark.sql.types.StructType

import txlog.{Metadata, Snapshot}
import txlog.errors.TxlogErrors
import txlog.protocol.{Constraint, Constraints}
import txlog.scan.TableScan
import txlog.util.Jobs

/** A commit that adds a CHECK constraint or a column invariant (or changes one's condition) must
  * find every row of the table satisfying it (the spec's writer rules for CHECK constraints; as
  * delta-spark's `ADD CONSTRAINT`): the rows of the version read, deletion vectors applied, are
  * checked by one Spark aggregation before anything is committed, and a row breaking it is
  * CONSTRAINT_VIOLATION with the number of such rows and one of them. The transaction then reads
  * the whole table, so a concurrent commit adding files conflicts instead of slipping rows past the
  * check.
  *
  * {{{
  * val added = NewConstraints.added(root, snap.metadata, staged)
  * NewConstraints.verify(root, snap, staged.schema, added)
  * }}}
  */
private[txlog] object NewConstraints {

  /** The constraints and invariants of `after` that `before` does not have with the same condition.
    * A malformed invariant of `before` is not held against the new metadata: only `after`'s must
    * parse.
    */
  def added(table: String, before: Metadata, after: Metadata): Seq[Constraint] = {
    val old =
      try Constraints.of(table, before).toSet
      catch { case NonFatal(_) => Set.empty[Constraint] }
    Constraints.of(table, after).filterNot(old)
  }

  /** CONSTRAINT_VIOLATION when a row of `snap` breaks one of `added`; columns of `schema` (the new
    * metadata's) that `snap` lacks are null in its rows. INVALID_METADATA when a condition does not
    * resolve on the table's columns.
    */
  def verify(table: String, snap: Snapshot, schema: StructType, added: Seq[Constraint]): Unit =
    if (added.nonEmpty) {
      val rows = snap.toDF
      val missing = schema.fields.filterNot(f => rows.columns.exists(_.equalsIgnoreCase(f.name)))
      val df = rows.select(
        rows.columns.toSeq.map(c => col(RowChecks.quote(c))) ++
          missing.toSeq.map(f => lit(null).cast(f.dataType).as(f.name)): _*
      )
      val everyColumn = to_json(struct(df.columns.toSeq.map(c => col(RowChecks.quote(c))): _*))
      val aggs: Seq[Column] = added.flatMap { c =>
        val broken =
          try !coalesce(expr(c.sql).cast("boolean"), lit(false))
          catch {
            case NonFatal(e) =>
              throw TxlogErrors.invalidMetadata(table, s"${c.name} (${c.sql}) does not parse: $e")
          }
        Seq(
          sum(when(broken, 1L).otherwise(0L)),
          first(when(broken, everyColumn), ignoreNulls = true)
        )
      }
      val counted =
        try df.agg(aggs.head, aggs.tail: _*)
        catch {
          case NonFatal(e) =>
            throw TxlogErrors.invalidMetadata(
              table,
              s"${added.map(_.name).mkString(", ")} does not resolve on the table's columns " +
                s"(${df.columns.mkString(", ")}): ${e.getMessage}"
            )
        }
      val names = added.map(_.name).mkString(", ")
      val r = Jobs.named(snap.spark, s"check $names against the rows of $table") {
        counted.collect().head
      }
      added.zipWithIndex.foreach { case (c, i) =>
        val n = if (r.isNullAt(2 * i)) 0L else r.getLong(2 * i)
        if (n > 0) {
          val example = r.getString(2 * i + 1)
          throw TxlogErrors.newConstraintViolated(
            table,
            snap.version,
            s"${c.name} (${c.sql})",
            n,
            if (example.length > 500) example.take(500) + "..." else example
          )
        }
      }
    }
}
