package txlog.connect

import org.sparkproject.connect.protobuf.{CodedInputStream, WireFormat}

import txlog.errors.TxlogErrors

/** One call of the Python API from a Spark Connect client: the `txlog.connect.Call` message
  * (docs/connect.md) that the client packs into a relation's `extension` field. `arguments` is a
  * JSON array whose items are text, numbers, booleans, null, objects of text (maps), or references:
  * `{"handle": id}` (an object an earlier call returned), `{"relation": i}` (the DataFrame of
  * `relations(i)`, a serialized `spark.connect.Relation`), `{"expression": i}` (the Column of
  * `expressions(i)`, a serialized `spark.connect.Expression`), `{"sql": text}` (a Column of SQL)
  * and `{"session": true}` (the client's session). `released` are the handles the client no longer
  * holds. A field 6, `nonce`, makes each call's relation unique (Spark Connect may reuse the plan
  * of an equal relation); it is read as any unknown field is: skipped.
  *
  * {{{
  * val call = ConnectCall.parse(any.getValue.toByteArray)
  * }}}
  */
private[txlog] final case class ConnectCall(
    method: String,
    arguments: String,
    relations: IndexedSeq[Array[Byte]],
    expressions: IndexedSeq[Array[Byte]],
    released: Seq[String]
)

private[txlog] object ConnectCall {

  /** The type URL of the message inside the extension's `google.protobuf.Any`. */
  val TypeUrl = "type.googleapis.com/txlog.connect.Call"

  // Field numbers, as docs/connect.md and python/txlog/_connect_messages.py declare them.
  private val Method = 1
  private val Arguments = 2
  private val Relations = 3
  private val Expressions = 4
  private val Released = 5

  /** The call in `bytes`; fields it does not know are skipped, as protobuf readers do. A message
    * that does not parse is INVALID_ARGUMENT.
    */
  def parse(bytes: Array[Byte]): ConnectCall = {
    val in = CodedInputStream.newInstance(bytes)
    var method, arguments = ""
    val relations, expressions = IndexedSeq.newBuilder[Array[Byte]]
    val released = Seq.newBuilder[String]
    try {
      var tag = in.readTag()
      while (tag != 0) {
        val delimited = WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED
        WireFormat.getTagFieldNumber(tag) match {
          case Method if delimited      => method = in.readStringRequireUtf8()
          case Arguments if delimited   => arguments = in.readStringRequireUtf8()
          case Relations if delimited   => relations += in.readByteArray()
          case Expressions if delimited => expressions += in.readByteArray()
          case Released if delimited    => released += in.readStringRequireUtf8()
          case _                        => in.skipField(tag)
        }
        tag = in.readTag()
      }
    } catch {
      case e: java.io.IOException =>
        throw TxlogErrors.invalidArgument("call", s"is not a txlog.connect.Call message: $e")
    }
    if (method.isEmpty) throw TxlogErrors.invalidArgument("call", "names no method")
    ConnectCall(method, arguments, relations.result(), expressions.result(), released.result())
  }
}
