package txlog.replay

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import org.apache.parquet.io.api.{Binary, Converter, GroupConverter, PrimitiveConverter}
import org.apache.parquet.schema.{GroupType, MessageType, Type}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._
import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema
import org.apache.spark.sql.types._

/** parquet-mr converters that build rows of a Spark schema from a clipped file schema (see
  * [[DriverParquet]]): structs as rows with that schema, maps as scala Maps, lists (three-level, or
  * two-level of primitives) as Seqs, and strings, longs, ints, booleans and doubles as themselves.
  */
private[replay] object ParquetRowConverters {
  private type Sink = Any => Unit

  /** The record converter: `current` is the row last read. */
  final class Root(schema: MessageType, struct: StructType) extends GroupConverter {
    var current: Row = _
    private val row = new RowConverter(schema, struct, r => current = r.asInstanceOf[Row])
    def getConverter(i: Int): Converter = row.getConverter(i)
    def start(): Unit = row.start()
    def end(): Unit = row.end()
  }

  private final class RowConverter(group: GroupType, struct: StructType, sink: Sink)
      extends GroupConverter {
    private val values = new Array[Any](struct.length)
    private val converters: Array[Converter] = group.getFields.asScala.map { t =>
      val i = index(struct, t.getName)
      converter(t, struct(i).dataType, v => values(i) = v)
    }.toArray
    def getConverter(i: Int): Converter = converters(i)
    def start(): Unit = java.util.Arrays.fill(values.asInstanceOf[Array[AnyRef]], null)
    def end(): Unit = sink(new GenericRowWithSchema(values.clone(), struct))
  }

  /** The field of `struct` that [[DriverParquet]] clipped `name` to. */
  private def index(struct: StructType, name: String): Int = {
    val exact = struct.fieldNames.indexOf(name)
    if (exact >= 0) exact else struct.fields.indexWhere(_.name.equalsIgnoreCase(name))
  }

  private def converter(t: Type, dataType: DataType, sink: Sink): Converter = dataType match {
    case s: StructType => new RowConverter(t.asGroupType, s, sink)
    case m: MapType    => new MapConverter(t.asGroupType, m, sink)
    case a: ArrayType  => new ListConverter(t.asGroupType, a, sink)
    case _             => value(t, dataType, sink)
  }

  private def value(t: Type, dataType: DataType, sink: Sink): Converter = {
    if (!t.isPrimitive) DriverParquet.unsupported(t, dataType)
    (dataType, t.asPrimitiveType.getPrimitiveTypeName) match {
      case (StringType, BINARY) =>
        new PrimitiveConverter {
          override def addBinary(v: Binary): Unit = sink(v.toStringUsingUTF8)
        }
      case (LongType, INT64) =>
        new PrimitiveConverter { override def addLong(v: Long): Unit = sink(v) }
      case (LongType, INT32) =>
        new PrimitiveConverter { override def addInt(v: Int): Unit = sink(v.toLong) }
      case (IntegerType, INT32) =>
        new PrimitiveConverter { override def addInt(v: Int): Unit = sink(v) }
      case (BooleanType, BOOLEAN) =>
        new PrimitiveConverter { override def addBoolean(v: Boolean): Unit = sink(v) }
      case (DoubleType, DOUBLE) =>
        new PrimitiveConverter { override def addDouble(v: Double): Unit = sink(v) }
      case (DoubleType, FLOAT) =>
        new PrimitiveConverter { override def addFloat(v: Float): Unit = sink(v.toDouble) }
      case _ => DriverParquet.unsupported(t, dataType)
    }
  }

  /** The one repeated field of a map or list group. */
  private def repeated(g: GroupType, dataType: DataType): Type = {
    if (g.getFieldCount != 1 || !g.getType(0).isRepetition(Type.Repetition.REPEATED)) {
      DriverParquet.unsupported(g, dataType)
    }
    g.getType(0)
  }

  private final class MapConverter(g: GroupType, m: MapType, sink: Sink) extends GroupConverter {
    private val keys = ArrayBuffer.empty[Any]
    private val values = ArrayBuffer.empty[Any]
    private var key: Any = null
    private var value: Any = null
    private val entry: GroupConverter = {
      val kv = repeated(g, m)
      if (!DriverParquet.isMap(g) || kv.isPrimitive || kv.asGroupType.getFieldCount != 2) {
        DriverParquet.unsupported(g, m)
      }
      val fields = kv.asGroupType
      val k = converter(fields.getType(0), m.keyType, v => key = v)
      val v = converter(fields.getType(1), m.valueType, x => value = x)
      new GroupConverter {
        def getConverter(i: Int): Converter = if (i == 0) k else v
        def start(): Unit = { key = null; value = null }
        def end(): Unit = { keys += key; values += value }
      }
    }
    def getConverter(i: Int): Converter = entry
    def start(): Unit = { keys.clear(); values.clear() }
    def end(): Unit = sink(keys.iterator.zip(values.iterator).toMap)
  }

  private final class ListConverter(g: GroupType, a: ArrayType, sink: Sink) extends GroupConverter {
    private val items = ArrayBuffer.empty[Any]
    private val child: Converter = {
      val r = repeated(g, a)
      if (!DriverParquet.isList(g)) DriverParquet.unsupported(g, a)
      if (r.isPrimitive) converter(r, a.elementType, v => items += v) // two-level
      else {
        val element = r.asGroupType
        if (element.getFieldCount != 1) DriverParquet.unsupported(g, a)
        var item: Any = null
        val c = converter(element.getType(0), a.elementType, v => item = v)
        new GroupConverter {
          def getConverter(i: Int): Converter = c
          def start(): Unit = item = null
          def end(): Unit = items += item
        }
      }
    }
    def getConverter(i: Int): Converter = child
    def start(): Unit = items.clear()
    def end(): Unit = sink(items.toList)
  }
}
