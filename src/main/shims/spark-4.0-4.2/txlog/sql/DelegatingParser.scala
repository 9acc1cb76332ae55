package txlog.sql

import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.types.StructType

/** [[DelegatingParserBase]] with the methods only Spark 4.0 to 4.2's parser interface has (4.3's
  * adds `splitStatements`: the spark-4.3 shim).
  */
private[txlog] abstract class DelegatingParser(delegate: ParserInterface)
    extends DelegatingParserBase(delegate) {
  def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
}
