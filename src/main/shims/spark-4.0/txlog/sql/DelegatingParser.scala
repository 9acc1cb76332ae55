package txlog.sql

import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.types.StructType

/** [[DelegatingParserBase]] with the methods only Spark 4.0's parser interface has (4.1 adds
  * parsing with a query's parameters: the spark-4.1-4.2 shim).
  */
private[txlog] abstract class DelegatingParser(delegate: ParserInterface)
    extends DelegatingParserBase(delegate) {
  def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
}
