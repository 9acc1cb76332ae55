package txlog.write

/** The commit of one micro-batch of a streaming sink, as delta-spark records it: the operation
  * `STREAMING UPDATE` with the query's output mode (`Append` or `Complete`), its id and the batch's
  * (epoch) id as parameters.
  *
  * {{{
  * StreamingUpdate("Append", query.id.toString, 3L).parameters("epochId") // "3"
  * }}}
  */
private[txlog] final case class StreamingUpdate(
    outputMode: String,
    queryId: String,
    epochId: Long
) {

  def parameters: Map[String, String] =
    Map("outputMode" -> outputMode, "queryId" -> queryId, "epochId" -> epochId.toString)
}

private[txlog] object StreamingUpdate {
  val Operation = "STREAMING UPDATE"
}
