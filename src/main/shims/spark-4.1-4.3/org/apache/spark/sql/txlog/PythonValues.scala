package org.apache.spark.sql.txlog

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.classic.{SparkSession => ClassicSession}
import org.apache.spark.sql.execution.python.EvaluatePython
import org.apache.spark.sql.types.StructType

/** A row as PySpark's `collect()` hands it to the pickler (Spark 4.1 to 4.3:
  * `EvaluatePython.toJava` with the session's `spark.sql.execution.pyspark.binaryAsBytes`).
  */
object PythonValues {

  /** `row` of `schema`, as `Dataset.collectToPython` converts it. Example:
    * `PythonValues.toJava(row, df.schema, spark)`.
    */
  def toJava(row: InternalRow, schema: StructType, spark: SparkSession): Any = {
    val binaryAsBytes = spark.asInstanceOf[ClassicSession].sessionState.conf.pysparkBinaryAsBytes
    EvaluatePython.toJava(row, schema, binaryAsBytes)
  }
}
