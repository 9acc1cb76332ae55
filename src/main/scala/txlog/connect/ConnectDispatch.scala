package txlog.connect

import java.lang.reflect.{InvocationTargetException, Method}
import java.util.{Map => JMap}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.{JsonNodeFactory, ObjectNode}
import org.apache.spark.sql.{Column, DataFrame, Dataset, SparkSession}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, LogicalPlan}
import org.apache.spark.sql.functions.expr
import org.apache.spark.sql.types.StringType
import org.apache.spark.unsafe.types.UTF8String

import txlog.errors.TxlogErrors
import txlog.python.{PythonFacade, PythonText}

/** Runs a [[ConnectCall]]: the method of [[txlog.python.PythonFacade]] it names, the one the
  * classic session's Python calls through py4j, with its arguments resolved on the server. Its
  * answer is one row of one column, `result`: `{"value": ...}` with text, a number, a boolean,
  * null, `{"handle": id}` for an object kept for the client ([[ConnectHandles]]) or `{"frame": id}`
  * for a DataFrame kept likewise. Two calls are the server's own: `_frame` (a kept DataFrame's
  * plan, which the client's DataFrame stands for) and `_toString`.
  *
  * {{{
  * val plan = ConnectDispatch.plan(ConnectCall.parse(bytes), context)
  * }}}
  */
private[txlog] object ConnectDispatch {
  private val mapper = new ObjectMapper()
  private val nodes = JsonNodeFactory.instance

  /** The facade's methods a client may call: those of the Python API, not the helpers its traits
    * share (`FacadeArgs`) nor the command line's entry point.
    */
  private lazy val methods: Map[String, Method] = {
    val helpers = classOf[txlog.python.FacadeArgs].getMethods.map(_.getName).toSet
    val all = PythonFacade.getClass.getMethods.toSeq.filter { m =>
      m.getDeclaringClass.getName.startsWith("txlog.python.") && !m.getName.contains('$') &&
      !helpers(m.getName) && m.getName != "cli"
    }
    all.groupBy(_.getName).collect { case (name, Seq(m)) => name -> m }
  }

  /** The plan answering `call`: its result row, or for `_frame` the kept DataFrame's plan. */
  def plan(call: ConnectCall, context: ConnectContext): LogicalPlan = {
    val handles = ConnectHandles.of(context.sessionId)
    handles.release(call.released)
    val args = arguments(call)
    call.method match {
      case "_frame" =>
        frameOf(handles.get(handleId(one(args, "_frame"))), "_frame").queryExecution.analyzed
      case "_toString" =>
        result(nodes.textNode(String.valueOf(handles.get(handleId(one(args, "_toString"))))))
      case name =>
        val method = methods.getOrElse(
          name,
          throw TxlogErrors.invalidArgument("method", s"$name is not a method of txlog's API")
        )
        val types = method.getParameterTypes
        if (types.length != args.length) {
          throw TxlogErrors.invalidArgument(
            "arguments",
            s"$name takes ${types.length} arguments, the call gave ${args.length}"
          )
        }
        val values =
          types.indices.map(i => argument(name, i, types(i), args(i), call, context, handles))
        val returned =
          try method.invoke(PythonFacade, values: _*)
          catch { case e: InvocationTargetException if e.getCause != null => throw e.getCause }
        result(answer(returned, handles))
    }
  }

  private def arguments(call: ConnectCall): IndexedSeq[JsonNode] = {
    val node =
      try mapper.readTree(if (call.arguments.isEmpty) "[]" else call.arguments)
      catch { case _: java.io.IOException => null }
    if (node == null || !node.isArray) {
      throw TxlogErrors.invalidArgument("arguments", "must be a JSON array")
    }
    node.elements().asScala.toIndexedSeq
  }

  private def one(args: IndexedSeq[JsonNode], name: String): JsonNode =
    if (args.length == 1) args.head
    else throw TxlogErrors.invalidArgument("arguments", s"$name takes one handle")

  private def handleId(node: JsonNode): String = Option(node.get("handle"))
    .filter(_.isTextual)
    .map(_.asText)
    .getOrElse(throw TxlogErrors.invalidArgument("handle", s"$node is no handle"))

  private def frameOf(o: AnyRef, name: String): DataFrame = o match {
    case df: Dataset[_] => df.toDF()
    case other =>
      throw TxlogErrors.invalidArgument(name, s"the handle holds a ${other.getClass.getSimpleName}")
  }

  /** Argument `i` of `method`, of `type`, from its JSON; a wrong kind is INVALID_ARGUMENT. */
  private def argument(
      method: String,
      i: Int,
      tpe: Class[_],
      node: JsonNode,
      call: ConnectCall,
      context: ConnectContext,
      handles: ConnectHandles
  ): AnyRef = {
    def wrong(expected: String): Nothing = throw TxlogErrors.invalidArgument(
      s"$method argument ${i + 1}",
      s"must be $expected, got ${node.getNodeType.toString.toLowerCase}"
    )
    def ref(key: String, of: IndexedSeq[Array[Byte]]): Option[Array[Byte]] =
      Option(node.get(key)).filter(_ => node.isObject).map { n =>
        if (!n.canConvertToInt || n.asInt < 0 || n.asInt >= of.length) wrong(s"a $key index")
        of(n.asInt)
      }
    if (tpe == classOf[SparkSession]) context.session
    else if (node.isNull) {
      if (tpe.isPrimitive) wrong("given") else null
    } else if (tpe == classOf[String]) {
      if (node.isTextual) node.asText else wrong("text")
    } else if (tpe == classOf[Boolean] || tpe == classOf[java.lang.Boolean]) {
      if (node.isBoolean) java.lang.Boolean.valueOf(node.asBoolean) else wrong("a boolean")
    } else if (tpe == classOf[Long] || tpe == classOf[java.lang.Long]) {
      if (node.canConvertToLong && node.isIntegralNumber) java.lang.Long.valueOf(node.asLong)
      else wrong("a whole number")
    } else if (tpe == classOf[JMap[_, _]]) {
      if (!node.isObject || !node.elements().asScala.forall(v => v.isTextual || v.isNull)) {
        wrong("an object of text values")
      }
      val m = new java.util.LinkedHashMap[String, String]()
      node.fieldNames().asScala.foreach(k => m.put(k, Option(node.get(k).textValue).orNull))
      m
    } else if (classOf[DataFrame].isAssignableFrom(tpe)) {
      ref("relation", call.relations).map(context.dataFrame).getOrElse(wrong("a DataFrame"))
    } else if (tpe == classOf[Column]) {
      ref("expression", call.expressions)
        .map(context.column)
        .orElse(Option(node.get("sql")).filter(_.isTextual).map(s => expr(s.asText)))
        .getOrElse(wrong("a Column"))
    } else {
      if (!node.isObject || node.get("handle") == null) wrong("a handle")
      val o = handles.get(handleId(node))
      if (!tpe.isInstance(o)) wrong(s"a handle of a ${tpe.getSimpleName}")
      o
    }
  }

  /** The JSON of what a method returned; objects are kept and named by their handle. */
  private def answer(value: AnyRef, handles: ConnectHandles): JsonNode = value match {
    case null | _: scala.runtime.BoxedUnit => nodes.nullNode()
    case s: String                         => nodes.textNode(s)
    case p: PythonText.Parts  => nodes.textNode((0 until p.count()).map(p.part).mkString)
    case b: java.lang.Boolean => nodes.booleanNode(b)
    case n: java.lang.Integer => nodes.numberNode(n.intValue)
    case n: java.lang.Long    => nodes.numberNode(n.longValue)
    case df: Dataset[_]       => objectOf("frame", handles.put(df))
    case o                    => objectOf("handle", handles.put(o))
  }

  private def objectOf(key: String, id: String): ObjectNode = {
    val o = nodes.objectNode()
    o.put(key, id)
    o
  }

  private def result(value: JsonNode): LogicalPlan = {
    val o = nodes.objectNode()
    o.set[JsonNode]("value", value)
    val attribute = AttributeReference("result", StringType, nullable = false)()
    LocalRelation(
      Seq(attribute),
      Seq(InternalRow(UTF8String.fromString(mapper.writeValueAsString(o))))
    )
  }
}
