package txlog.sql

import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.types.StructType

/** [[DelegatingParserBase]] with the methods only Spark 4.x's parser interface has. */
private[txlog] abstract class DelegatingParser(delegate: ParserInterface)
    extends DelegatingParserBase(delegate) {
  def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
}
