package org.apache.spark.sql.txlog

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.{Cast, EvalMode, Expression}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.DataType

/** Columns to and from Catalyst expressions (Spark 3.5: `Column` wraps its expression), for the few
  * expressions txlog builds that the public column API cannot.
  */
object SparkExpressions {
  def column(e: Expression): Column = new Column(e)
  def expression(c: Column): Expression = c.expr

  /** `c` cast to `dataType`, null where the value does not convert (SQL's `try_cast`). */
  def tryCast(c: Column, dataType: DataType): Column =
    new Column(Cast(c.expr, dataType, Option(SQLConf.get.sessionLocalTimeZone), EvalMode.TRY))
}
