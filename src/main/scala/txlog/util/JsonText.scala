package txlog.util

import com.fasterxml.jackson.databind.ObjectMapper

/** Values as the JSON text commitInfo's operation parameters hold (delta-spark writes `partitionBy`
  * and `predicate` as JSON arrays of strings inside a string).
  *
  * {{{
  * JsonText.array(Seq("date")) // ["date"]
  * }}}
  */
private[txlog] object JsonText {
  private val mapper = new ObjectMapper()

  /** `xs` as a JSON array of strings. */
  def array(xs: Seq[String]): String = mapper.writeValueAsString(xs.toArray)

  /** `kvs` as a JSON object of strings, in their order (`{"k":"v"}`). */
  def obj(kvs: Seq[(String, String)]): String = {
    val node = mapper.createObjectNode()
    kvs.foreach { case (k, v) => node.put(k, v) }
    mapper.writeValueAsString(node)
  }
}
