package txlog.sql

import org.apache.spark.sql.catalyst.{FunctionIdentifier, TableIdentifier}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.{DataType, StructType}

/** The parser methods every Spark line has, handed to `delegate`; each line's `DelegatingParser`
  * (in the shims) adds the ones only its line has. [[TxlogSqlParser]] decides which statements are
  * txlog's.
  */
private[txlog] abstract class DelegatingParserBase(val delegate: ParserInterface)
    extends ParserInterface {

  /** The plan of `sqlText`: a statement of the wrapping parser's own, or `delegated`'s plan (the
    * delegate's `parsePlan`, or on Spark 4.1 and later its parsing with the query's parameters).
    */
  protected def plan(sqlText: String, delegated: String => LogicalPlan): LogicalPlan

  def parsePlan(sqlText: String): LogicalPlan = plan(sqlText, delegate.parsePlan)
  def parseExpression(sqlText: String): Expression = delegate.parseExpression(sqlText)
  def parseTableIdentifier(sqlText: String): TableIdentifier =
    delegate.parseTableIdentifier(sqlText)
  def parseFunctionIdentifier(sqlText: String): FunctionIdentifier =
    delegate.parseFunctionIdentifier(sqlText)
  def parseMultipartIdentifier(sqlText: String): Seq[String] =
    delegate.parseMultipartIdentifier(sqlText)
  def parseQuery(sqlText: String): LogicalPlan = delegate.parseQuery(sqlText)
  def parseTableSchema(sqlText: String): StructType = delegate.parseTableSchema(sqlText)
  def parseDataType(sqlText: String): DataType = delegate.parseDataType(sqlText)
}
