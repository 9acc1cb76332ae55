package txlog.python

import java.util.Base64

import net.razorvine.pickle.Pickler
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation
import org.apache.spark.sql.execution.python.EvaluatePython
import org.apache.spark.sql.txlog.{PythonValues, SparkPlans}

/** The rows of a DataFrame the driver holds (a local relation: a small table's file list, see
  * `DriverFileList`), pickled as PySpark's `collect()` pickles them, for Python to read in one
  * answer. Spark's own `collect()` of such a DataFrame runs no job, yet costs about 8 ms before a
  * row moves: it starts and ends a SQL execution (with its listener events and plan description),
  * its local scan generates a projection for the schema (a few hundred lines of code for the file
  * list's nested statistics), and it serves the rows over a fresh local socket. Here: none of those
  * (so the collect is not listed in the Spark UI's SQL tab).
  *
  * Python reads the answer with `txlog._gateway.call_text` and unpickles it as `collect()` does, so
  * the rows are `collect()`'s own: `txlog._local_rows.LocalRowsFrame`.
  *
  * {{{
  * LocalRows.of(snapshot.allFiles)  // base64 of the pickled rows, or null
  * }}}
  */
private[txlog] object LocalRows {

  /** The most bytes pickled this way (1 MiB, a few hundred parts of [[PythonText]]): past them the
    * rows go through Spark's `collect()`, whose socket carries them in one stream.
    */
  val MaxBytes: Int = 1 << 20

  /** The rows of `df`, pickled, as base64 text (in [[PythonText]] parts when long), or null when
    * its plan is not a local relation or the rows take more than [[MaxBytes]]. Held while it runs:
    * the converted rows and their pickle, as large as the relation's rows (bounded by the
    * relation).
    */
  def of(df: DataFrame): AnyRef = SparkPlans.analyzedOf(df) match {
    case r: LocalRelation if !r.isStreaming =>
      val schema = df.schema
      val spark = df.sparkSession
      EvaluatePython.registerPicklers()
      val rows: Array[Any] = r.data.iterator.map(PythonValues.toJava(_, schema, spark)).toArray
      // as Spark's SerDeUtil pickles collect()'s batches: memo on, values compared by identity
      val bytes = new Pickler(true, false).dumps(rows)
      if (bytes.length > MaxBytes) null
      else PythonText.of(Base64.getEncoder.encodeToString(bytes))
    case _ => null
  }
}
