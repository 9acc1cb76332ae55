package txlog.sql

import org.apache.spark.sql.catalyst.parser.{ParserInterface, SqlStatementSplitResult}
import org.apache.spark.sql.types.StructType

/** [[DelegatingParserBase]] with the methods only Spark 4.3's parser interface has: 4.x's and the
  * splitting of a script into statements, both the delegate's.
  */
private[txlog] abstract class DelegatingParser(delegate: ParserInterface)
    extends DelegatingParserBase(delegate) {
  def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
  def splitStatements(sqlText: String): SqlStatementSplitResult =
    delegate.splitStatements(sqlText)
}
