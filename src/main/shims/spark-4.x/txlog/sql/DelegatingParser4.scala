package txlog.sql

import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.types.StructType

/** [[DelegatingParserBase]] with the method every Spark 4 parser interface adds; each 4.x line's
  * `DelegatingParser` (shims spark-4.0, spark-4.1-4.2, spark-4.3) adds what only its lines have.
  */
private[txlog] abstract class DelegatingParser4(delegate: ParserInterface)
    extends DelegatingParserBase(delegate) {
  def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
}
