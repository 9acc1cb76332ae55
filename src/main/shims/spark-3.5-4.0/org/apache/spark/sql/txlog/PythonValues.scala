package org.apache.spark.sql.txlog

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.python.EvaluatePython
import org.apache.spark.sql.types.StructType

/** A row as PySpark's `collect()` hands it to the pickler (Spark 3.5 and 4.0:
  * `EvaluatePython.toJava` without the session's `binaryAsBytes`).
  */
object PythonValues {

  /** `row` of `schema`, as `Dataset.collectToPython` converts it. Example:
    * `PythonValues.toJava(row, df.schema, spark)`.
    */
  def toJava(row: InternalRow, schema: StructType, spark: SparkSession): Any =
    EvaluatePython.toJava(row, schema)
}
