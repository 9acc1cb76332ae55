package org.apache.spark.sql.catalyst.txlog

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation

/** Local relations txlog builds on the driver from values it has already typed (a small table's
  * file list), marked analyzed as Spark marks the plans its analyzer returns: their attributes are
  * resolved and their rows already of the attributes' types, so the analyzer has nothing to resolve
  * or coerce, and a DataFrame over one skips its batches of rules (`Analyzer.executeAndCheck`
  * returns an analyzed plan as it is; more than half of a golden table's `allFiles` in a probe).
  * Plans built on top of such a DataFrame are analyzed as ever. In Spark's catalyst package because
  * `setAnalyzed` is `private[catalyst]`.
  *
  * {{{
  * SparkPlans.dataFrame(spark, AnalyzedRelations.local(output, rows))
  * }}}
  */
object AnalyzedRelations {

  /** A local relation of `output` holding `rows` (each of `output`'s types, in its order). */
  def local(output: Seq[Attribute], rows: Seq[InternalRow]): LocalRelation = {
    val relation = LocalRelation(output, rows)
    relation.setAnalyzed()
    relation
  }
}
