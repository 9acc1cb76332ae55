package txlog.txn

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions.{col, from_json}
import org.apache.spark.sql.types.{StringType, StructType}

import txlog.TxlogErrors

/** File actions given as JSON objects rather than a DataFrame (Python's `add_files([...])`: a list
  * of dicts), made into a local DataFrame of the action's schema on the driver, without a Spark
  * job: a small commit from Python then runs no job to read what it stages. Each entry must be an
  * object whose fields the action has, each of the spec's JSON type; anything else is
  * INVALID_COMMIT_ACTIONS naming the entry, before anything is staged. The entries are as many as
  * the caller holds in memory already (one py4j string); a large commit belongs in a DataFrame.
  */
private[txlog] object ActionEntries {
  private val mapper = new ObjectMapper()

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
    val known = schema.fieldNames.toSet
    val texts = root
      .elements()
      .asScala
      .zipWithIndex
      .map { case (entry, i) =>
        if (!entry.isObject) {
          throw refuse(s"$kind entry $i is ${kindOf(entry)}, not an object of the action's fields")
        }
        val unknown = entry.fieldNames().asScala.filterNot(known).toSeq.sorted
        if (unknown.nonEmpty) {
          throw refuse(
            s"$kind entry $i has ${unknown.mkString(", ")}, which an $kind does not have; its " +
              s"fields: ${schema.fieldNames.mkString(", ")}"
          )
        }
        Row(i.toLong, mapper.writeValueAsString(entry))
      }
      .toSeq
    // A local relation: the parse is folded into one on the driver, so this runs no job.
    def parse(rows: Seq[Row]): Array[Row] = spark
      .createDataFrame(rows.asJava, new StructType().add("i", "long").add("json", StringType))
      .select(from_json(col("json"), schema, Map("mode" -> "FAILFAST")))
      .collect()
    val rows =
      try parse(texts)
      catch {
        case NonFatal(_) =>
          // the first entry that does not parse alone, named
          texts.foreach { r =>
            try parse(Seq(r))
            catch {
              case NonFatal(e) =>
                throw refuse(
                  s"$kind entry ${r.getLong(0)} does not parse as the action's fields (a field " +
                    s"of the wrong JSON type?): ${rootCause(e)}"
                )
            }
          }
          throw refuse(s"$kind entries do not parse as the action's fields")
      }
    spark.createDataFrame(rows.map(_.getStruct(0)).toSeq.asJava, schema)
  }

  private def kindOf(n: JsonNode): String =
    if (n.isArray) "an array"
    else if (n.isNull) "null"
    else s"a ${n.getNodeType.toString.toLowerCase}"

  private def rootCause(e: Throwable): String = {
    var t = e
    while (t.getCause != null && t.getCause != t) t = t.getCause
    Option(t.getMessage).getOrElse(t.getClass.getSimpleName)
  }
}
