package org.apache.spark.sql.txlog

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.classic.ExpressionUtils
import org.apache.spark.sql.types.DataType

/** Columns to and from Catalyst expressions (Spark 4.x "classic" API), for the few expressions
  * txlog builds that the public column API cannot. In Spark's package because the conversions are
  * `private[sql]`.
  */
object SparkExpressions {
  def column(e: Expression): Column = ExpressionUtils.column(e)
  def expression(c: Column): Expression = ExpressionUtils.expression(c)

  /** `c` cast to `dataType`, null where the value does not convert (SQL's `try_cast`). */
  def tryCast(c: Column, dataType: DataType): Column = c.try_cast(dataType)
}
