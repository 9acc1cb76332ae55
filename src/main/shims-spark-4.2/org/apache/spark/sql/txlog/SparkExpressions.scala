package org.apache.spark.sql.txlog

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.classic.ExpressionUtils

/** Columns to and from Catalyst expressions (Spark 4.x "classic" API), for the few expressions
  * txlog builds that the public column API cannot. In Spark's package because the conversions are
  * `private[sql]`.
  */
object SparkExpressions {
  def column(e: Expression): Column = ExpressionUtils.column(e)
  def expression(c: Column): Expression = ExpressionUtils.expression(c)
}
