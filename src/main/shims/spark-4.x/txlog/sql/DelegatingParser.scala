package txlog.sql

import org.apache.spark.sql.catalyst.{FunctionIdentifier, TableIdentifier}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.{DataType, StructType}

/** A parser that hands everything but whole statements to `delegate` (Spark 4.x's parser
  * interface); [[TxlogSqlParser]] decides which statements are txlog's.
  */
private[txlog] abstract class DelegatingParser(val delegate: ParserInterface)
    extends ParserInterface {
  def parseExpression(sqlText: String): Expression = delegate.parseExpression(sqlText)
  def parseTableIdentifier(sqlText: String): TableIdentifier =
    delegate.parseTableIdentifier(sqlText)
  def parseFunctionIdentifier(sqlText: String): FunctionIdentifier =
    delegate.parseFunctionIdentifier(sqlText)
  def parseMultipartIdentifier(sqlText: String): Seq[String] =
    delegate.parseMultipartIdentifier(sqlText)
  def parseQuery(sqlText: String): LogicalPlan = delegate.parseQuery(sqlText)
  def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
  def parseTableSchema(sqlText: String): StructType = delegate.parseTableSchema(sqlText)
  def parseDataType(sqlText: String): DataType = delegate.parseDataType(sqlText)
}
