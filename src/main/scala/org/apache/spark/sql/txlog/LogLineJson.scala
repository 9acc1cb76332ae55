package org.apache.spark.sql.txlog

import com.fasterxml.jackson.core.{JsonFactory, JsonParser}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, Nondeterministic, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.json.{JacksonParser, JSONOptions}
import org.apache.spark.sql.catalyst.util.{FailureSafeParser, PermissiveMode}
import org.apache.spark.sql.types.{DataType, StructType}
import org.apache.spark.unsafe.types.UTF8String

/** `from_json(line, schema)` in PERMISSIVE mode with `corruptColumn` (a field of `schema`), for the
  * lines of log files: the same parser, options and results as `from_json` (a row of `schema`, null
  * for a line that holds no object; a line that is not valid JSON, or a field of the wrong type,
  * sets `corruptColumn` to the line), but each line is parsed from its UTF-8 bytes as they are,
  * where `from_json` decodes every line through a `java.io.Reader` of its own (an 8 KiB buffer and
  * a decoder made per line: a third of the task time of a load of 10,000 small commits).
  *
  * Declared nondeterministic, though it is not, so that the optimizer keeps filters on its result
  * above it: pushing one below the projection that parses (as it does with `from_json`) parses each
  * line twice, once for the filter and once for the projection.
  *
  * In Spark's package because Spark's JSON parser and its options are `private[sql]`.
  */
case class LogLineJson(
    child: Expression,
    schema: StructType,
    corruptColumn: String,
    timeZoneId: String
) extends UnaryExpression
    with Nondeterministic
    with CodegenFallback {
  require(schema.fieldNames.contains(corruptColumn), s"$corruptColumn is not a field of $schema")

  override def dataType: DataType = schema.asNullable
  override def nullable: Boolean = true
  override def prettyName: String = "txlog_log_line_json"

  @transient private lazy val parser: FailureSafeParser[UTF8String] = {
    val options = new JSONOptions(
      Map("mode" -> PermissiveMode.name, "columnNameOfCorruptRecord" -> corruptColumn),
      timeZoneId,
      corruptColumn
    )
    val fields = StructType(schema.asNullable.filterNot(_.name == corruptColumn))
    val raw = new JacksonParser(fields, options, false, Seq.empty)
    new FailureSafeParser[UTF8String](
      line => raw.parse(line, LogLineJson.fromBytes, identity[UTF8String]),
      PermissiveMode,
      schema.asNullable,
      corruptColumn
    )
  }

  override protected def initializeInternal(partitionIndex: Int): Unit = ()

  override protected def evalInternal(input: InternalRow): Any = {
    val line = child.eval(input)
    if (line == null) null
    else {
      val rows = parser.parse(line.asInstanceOf[UTF8String])
      if (rows.hasNext) rows.next() else null
    }
  }

  override protected def withNewChildInternal(newChild: Expression): LogLineJson =
    copy(child = newChild)
}

object LogLineJson {

  /** A parser of the line's bytes where they are (no copy, no decoding ahead of Jackson's). */
  private val fromBytes: (JsonFactory, UTF8String) => JsonParser = (factory, line) => {
    val bytes = line.getByteBuffer
    factory.createParser(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining())
  }
}
