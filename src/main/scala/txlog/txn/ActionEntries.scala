package txlog.txn

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types._

import txlog.errors.TxlogErrors

/** File actions given as JSON objects rather than a DataFrame (Python's `add_files([...])`: a list
  * of dicts), made into a local DataFrame of the action's schema on the driver, without a Spark job
  * or a query to plan: a small commit from Python then runs no job to read what it stages. Each
  * entry must be an object whose fields the action has (at every depth), each of the spec's JSON
  * type (a whole number for a long, a string for a string, an object for a map or struct); anything
  * else is INVALID_COMMIT_ACTIONS naming the entry and field, before anything is staged. The
  * entries are as many as the caller holds in memory already (one py4j string); a large commit
  * belongs in a DataFrame.
  */
private[txlog] object ActionEntries {
  private val mapper = new ObjectMapper()

  private final class Refused(val detail: String) extends Exception(detail)

  /** `json` (a JSON array of objects) as a DataFrame of `schema`, one row per object; `kind` names
    * the action in errors ("add", "remove").
    */
  def frame(
      spark: SparkSession,
      table: String,
      kind: String,
      schema: StructType,
      json: String
  ): DataFrame = {
    def refuse(detail: String) = TxlogErrors.invalidCommitActions(table, detail)
    val root =
      try mapper.readTree(json)
      catch { case NonFatal(e) => throw refuse(s"$kind entries are not JSON: ${e.getMessage}") }
    if (root == null || !root.isArray) throw refuse(s"$kind entries must be a JSON array")
    val rows = root
      .elements()
      .asScala
      .zipWithIndex
      .map { case (entry, i) =>
        try struct(entry, schema, "")
        catch { case r: Refused => throw refuse(s"$kind entry $i: ${r.detail}") }
      }
      .toSeq
    spark.createDataFrame(rows.asJava, schema)
  }

  /** `node` as a row of `schema`; `at` is the field it is (empty: the entry itself). */
  private def struct(node: JsonNode, schema: StructType, at: String): Row = {
    val what = if (at.isEmpty) "it" else at
    if (!node.isObject) throw new Refused(s"$what is ${kindOf(node)}, not an object")
    val unknown = node.fieldNames().asScala.filterNot(schema.fieldNames.contains).toSeq.sorted
    if (unknown.nonEmpty) {
      throw new Refused(
        s"$what has ${unknown.mkString(", ")}, which the action does not have; the fields " +
          s"there: ${schema.fieldNames.mkString(", ")}"
      )
    }
    Row.fromSeq(schema.fields.toSeq.map { f =>
      value(node.get(f.name), f.dataType, if (at.isEmpty) f.name else s"$at.${f.name}")
    })
  }

  private def value(node: JsonNode, t: DataType, name: String): Any = {
    def wrong(want: String) = new Refused(s"$name must be $want, not ${kindOf(node)}")
    if (node == null || node.isNull) null
    else
      t match {
        case StringType =>
          if (node.isTextual) node.textValue else throw wrong("a string")
        case LongType =>
          if (node.isIntegralNumber && node.canConvertToLong) node.longValue
          else throw wrong("a whole number")
        case IntegerType =>
          if (node.isIntegralNumber && node.canConvertToInt) node.intValue
          else throw wrong("a whole number of 32 bits")
        case BooleanType =>
          if (node.isBoolean) node.booleanValue else throw wrong("true or false")
        case MapType(StringType, vt, _) =>
          if (!node.isObject) throw wrong("an object")
          node
            .fieldNames()
            .asScala
            .map(k => k -> value(node.get(k), vt, s"$name.$k"))
            .toMap
        case s: StructType => struct(node, s, name)
        case other         => throw new Refused(s"$name has a type entries cannot give: $other")
      }
  }

  private def kindOf(n: JsonNode): String =
    if (n.isArray) "an array"
    else if (n.isNull) "null"
    else if (n.isTextual) s"the string ${n.toString}"
    else if (n.isObject) "an object"
    else s"${n.toString}"
}
