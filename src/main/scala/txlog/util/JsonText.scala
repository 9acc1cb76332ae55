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
}
