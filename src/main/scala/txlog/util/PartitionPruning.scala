package txlog.util

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.execution.ExecSubqueryExpression
import org.apache.spark.sql.functions._

import org.apache.spark.sql.txlog.SparkExpressions

/** Spark's partition filters as one condition on a file's typed partition values (the struct column
  * `pv`, logical names), evaluated where the files are, not on the driver.
  *
  * Spark does not evaluate partition filters again on the rows read, so the condition is exact: a
  * file is kept when the filters are true for its values; a filter that cannot be evaluated this
  * way fails the scan instead of being left out.
  *
  * {{{
  * val kept = files.where(PartitionPruning.condition(partitionFilters, "pv"))
  * }}}
  */
private[txlog] object PartitionPruning {

  def condition(filters: Seq[Expression], struct: String): Column = {
    val parts = filters.map { f =>
      val bound = withSubqueryResults(f).transform { case a: AttributeReference =>
        UnresolvedAttribute(Seq(struct, a.name))
      }
      coalesce(SparkExpressions.column(bound), lit(false))
    }
    parts.reduceOption(_ && _).getOrElse(lit(true))
  }

  /** `filter` with each subquery Spark has run replaced by its result: partition filters are
    * applied whole, never left out (Spark does not apply them again to the rows read).
    */
  def withSubqueryResults(filter: Expression): Expression = filter.transform {
    case s: ExecSubqueryExpression => Literal.create(s.eval(), s.dataType)
  }
}
