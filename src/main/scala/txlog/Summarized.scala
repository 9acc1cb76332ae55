package txlog

/** A result whose summary is one flat list of snake_case fields: the same fields the command line
  * prints with `--json`, the Python package returns, and [[toJson]] gives. The result owns them; no
  * surface names them again.
  *
  * {{{
  * val r = log.vacuum()
  * println(r.toJson) // {"mode":"full","retention_hours":168.0,...}
  * }}}
  */
trait Summarized {

  /** The summary: snake_case names in a stable order; values are numbers, strings, booleans, null,
    * or Java lists and maps of them, as JSON writes them. Example: `r.summaryFields.toMap("mode")`.
    */
  def summaryFields: Seq[(String, Any)]

  /** The summary as one JSON object. Example: `println(log.checkpoint().toJson)`. */
  def toJson: String = Summarized.json(summaryFields)
}

private[txlog] object Summarized {

  /** `fields` as one JSON object, in their order. */
  def json(fields: Seq[(String, Any)]): String = txlog.util.PlainJson.write(javaMap(fields))

  /** `fields` as an ordered Java map (what JSON writers and py4j take). */
  def javaMap(fields: Seq[(String, Any)]): java.util.LinkedHashMap[String, Any] = {
    val m = new java.util.LinkedHashMap[String, Any]()
    fields.foreach { case (k, v) => m.put(k, v) }
    m
  }

  /** An optional number as JSON writes it (null when absent). */
  def orNull(v: Option[Long]): java.lang.Long = v.map(Long.box).orNull
}
