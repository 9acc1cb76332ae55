package txlog.write

import java.util.Locale

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import txlog.protocol.TableConfiguration
import txlog.errors.TxlogErrors

/** Which columns of a data file get statistics ("Per-file Statistics"), as delta-spark chooses
  * them: the first `delta.dataSkippingNumIndexedCols` leaf columns (32; negative: all; a struct's
  * leaves count one each, arrays and maps one) or the columns `delta.dataSkippingStatsColumns`
  * names (a struct named brings all its leaves); null counts for every chosen leaf, minimum and
  * maximum for numbers, dates, timestamps and strings (strings cut to
  * `delta.dataSkippingStringPrefixLength` characters, 32).
  *
  * @param leaves
  *   the chosen leaves: ordinal path in the data row, names (physical) and type
  */
private[txlog] final case class StatsSpec(leaves: Vector[StatsSpec.Leaf], prefixLength: Int)
    extends Serializable {

  /** The statistics' type: numRecords, minValues, maxValues, nullCount (and tightBounds). */
  def schema(tightBounds: Boolean): StructType = {
    val minMax = nest(leaves.filter(_.minMax).map(l => l.names -> l.dataType))
    val nulls = nest(leaves.map(l => l.names -> (LongType: DataType)))
    var s = new StructType().add("numRecords", LongType)
    minMax.foreach(m => s = s.add("minValues", m).add("maxValues", m))
    nulls.foreach(n => s = s.add("nullCount", n))
    if (tightBounds) s.add("tightBounds", BooleanType) else s
  }

  /** Leaves (name paths and types) as nested structs, in the leaves' order; None when empty. */
  private def nest(fields: Seq[(Seq[String], DataType)]): Option[StructType] =
    if (fields.isEmpty) None
    else {
      val groups = fields.foldLeft(Vector.empty[(String, Vector[(Seq[String], DataType)])]) {
        case (acc, (names, t)) =>
          val i = acc.indexWhere(_._1 == names.head)
          val entry = names.tail -> t
          if (i < 0) acc :+ (names.head -> Vector(entry))
          else acc.updated(i, acc(i)._1 -> (acc(i)._2 :+ entry))
      }
      Some(StructType(groups.map {
        case (name, Vector((Seq(), t))) => StructField(name, t)
        case (name, inner)              => StructField(name, nest(inner).get)
      }))
    }
}

private[txlog] object StatsSpec {

  /** One leaf column: ordinals from the data row down, the field counts of the structs on that
    * path, physical names, type; whether it gets a minimum and maximum.
    */
  final case class Leaf(
      ordinals: Vector[Int],
      sizes: Vector[Int],
      names: Vector[String],
      dataType: DataType
  ) {
    def minMax: Boolean = dataType match {
      case _: NumericType | DateType | TimestampType | TimestampNTZType | StringType => true
      case _                                                                         => false
    }
  }

  /** The spec for `dataSchema` (the written columns, logical names; `physical` gives a field's
    * physical name) under table `properties`. INVALID_SETTING for a property out of range or a
    * stats column that is not in the schema.
    */
  def of(
      table: String,
      dataSchema: StructType,
      config: TableConfiguration,
      physical: StructField => String
  ): StatsSpec = {
    def all(t: StructType, ords: Vector[Int], sizes: Vector[Int], names: Vector[String]) =
      leavesOf(t, ords, sizes, names, physical)
    val prefix = config.statsStringPrefixLength
    val leaves = config.statsColumns match {
      case Some(list) =>
        val wanted = list.split(",").map(_.trim).filter(_.nonEmpty).map(parsePath).toSeq
        val logical = logicalLeaves(dataSchema)
        val chosen = wanted.map { w =>
          val hit = logical.indices.filter(i => startsWith(logical(i), w))
          if (hit.isEmpty) {
            throw TxlogErrors.invalidSetting(
              "delta.dataSkippingStatsColumns",
              list,
              s"column ${w.mkString(".")} is not a data column of $table"
            )
          }
          hit
        }
        val keep = chosen.flatten.toSet
        all(dataSchema, Vector.empty, Vector.empty, Vector.empty).zipWithIndex.collect {
          case (l, i) if keep(i) => l
        }
      case _ =>
        val n = config.numIndexedCols
        val every = all(dataSchema, Vector.empty, Vector.empty, Vector.empty)
        if (n < 0) every else every.take(n)
    }
    StatsSpec(leaves, prefix)
  }

  private def leavesOf(
      t: StructType,
      ords: Vector[Int],
      sizes: Vector[Int],
      names: Vector[String],
      physical: StructField => String
  ): Vector[Leaf] = t.fields.toVector.zipWithIndex.flatMap { case (f, i) =>
    f.dataType match {
      case s: StructType => leavesOf(s, ords :+ i, sizes :+ s.size, names :+ physical(f), physical)
      case other         => Vector(Leaf(ords :+ i, sizes, names :+ physical(f), other))
    }
  }

  private def logicalLeaves(t: StructType): Vector[Vector[String]] = t.fields.toVector.flatMap {
    f =>
      f.dataType match {
        case s: StructType => logicalLeaves(s).map(f.name.toLowerCase(Locale.ROOT) +: _)
        case _             => Vector(Vector(f.name.toLowerCase(Locale.ROOT)))
      }
  }

  private def startsWith(leaf: Vector[String], prefix: Seq[String]): Boolean =
    leaf.size >= prefix.size && leaf.take(prefix.size) == prefix

  /** `a.b`, `` `a.b`.c ``: name parts, lower case. */
  private def parsePath(s: String): Seq[String] = {
    val parts = Vector.newBuilder[String]
    val cur = new StringBuilder
    var quoted = false
    s.foreach {
      case '`'            => quoted = !quoted
      case '.' if !quoted => parts += cur.toString; cur.clear()
      case c              => cur += c
    }
    parts += cur.toString
    parts.result().map(_.toLowerCase(Locale.ROOT))
  }

}

/** The statistics of one data file, gathered row by row as the write task writes it. */
private[txlog] final class FileStatistics(spec: StatsSpec) {
  import FileStatistics._

  private val n = spec.leaves.size
  private val nulls = new Array[Long](n)
  private val bounds: Array[Bounds] = spec.leaves.map(l => Bounds.of(l)).toArray
  // top-level leaves (most of them) are read without walking structs
  private val topLevel: Array[Int] =
    spec.leaves.map(l => if (l.ordinals.size == 1) l.ordinals.head else -1).toArray
  private var records = 0L

  /** Counts `row` (a data row, without partition columns). */
  def add(row: InternalRow): Unit = {
    records += 1
    var i = 0
    while (i < n) {
      val top = topLevel(i)
      if (top >= 0) {
        if (row.isNullAt(top)) nulls(i) += 1
        else if (bounds(i) != null) bounds(i).update(row, top)
      } else {
        val leaf = spec.leaves(i)
        val parent = parentOf(row, leaf)
        val o = leaf.ordinals.last
        if (parent == null || parent.isNullAt(o)) nulls(i) += 1
        else if (bounds(i) != null) bounds(i).update(parent, o)
      }
      i += 1
    }
  }

  def numRecords: Long = records

  /** The struct holding a nested leaf (null when a struct on the way is null). */
  private def parentOf(row: InternalRow, leaf: StatsSpec.Leaf): InternalRow = {
    var r = row
    var d = 0
    val last = leaf.ordinals.size - 1
    while (d < last) {
      val o = leaf.ordinals(d)
      if (r.isNullAt(o)) return null
      r = r.getStruct(o, leaf.sizes(d))
      d += 1
    }
    r
  }

  private def mins(i: Int): Any = if (bounds(i) == null) null else bounds(i).min
  private def maxs(i: Int): Any = if (bounds(i) == null) null else bounds(i).max

  /** The statistics as an external row of `spec.schema(tightBounds)`. */
  def toRow(tightBounds: Boolean): Row = {
    val schema = spec.schema(tightBounds)
    val minMaxLeaves = spec.leaves.indices.filter(spec.leaves(_).minMax)
    // the structs of spec.schema hold the leaves depth first, in the leaves' order
    def tree(idx: Seq[Int], pick: Int => Any, t: StructType): Row = {
      val it = idx.iterator
      def build(st: StructType): Row = Row.fromSeq(st.fields.toSeq.map { f =>
        f.dataType match {
          case s: StructType => build(s)
          case dt =>
            val v = pick(it.next())
            if (v == null) null else CatalystTypeConverters.convertToScala(v, dt)
        }
      })
      build(t)
    }
    val values = schema.fields.toSeq.map {
      case StructField("numRecords", _, _, _) => records
      case StructField("minValues", t: StructType, _, _) =>
        tree(minMaxLeaves, i => truncateMin(mins(i)), t)
      case StructField("maxValues", t: StructType, _, _) =>
        tree(minMaxLeaves, i => truncateMax(maxs(i)), t)
      case StructField("nullCount", t: StructType, _, _) =>
        tree(spec.leaves.indices, i => nulls(i), t)
      case StructField("tightBounds", _, _, _) => true
      case f                                   => throw new IllegalStateException(f.name)
    }
    Row.fromSeq(values)
  }

  private def truncateMin(v: Any): Any = v match {
    case s: UTF8String if s.numChars() > spec.prefixLength =>
      // delta-spark cuts the minimum to its first characters (code points)
      if (spec.prefixLength <= 0) null else s.substring(0, spec.prefixLength)
    case other => other
  }

  private def truncateMax(v: Any): Any = v match {
    case s: UTF8String =>
      val str = s.toString
      if (str.length <= spec.prefixLength) s
      else FileStatistics.maxPrefix(str, spec.prefixLength).map(UTF8String.fromString).orNull
    case other => other
  }
}

private[txlog] object FileStatistics {

  /** A leaf's minimum and maximum, kept in the leaf type's own primitive where it has one (no
    * boxing per row); values in Spark's internal representation, ordered as Spark's `min` and `max`
    * order them (NaN above every number, strings by UTF-8 bytes).
    */
  private[write] abstract class Bounds {
    def update(row: InternalRow, ordinal: Int): Unit
    def min: Any
    def max: Any
  }

  private[write] object Bounds {
    def of(leaf: StatsSpec.Leaf): Bounds = if (!leaf.minMax) null
    else
      leaf.dataType match {
        // subclasses, not functions: a function returning a primitive would box it
        case ByteType =>
          new IntegralBounds(_.toByte) {
            def read(r: InternalRow, o: Int): Long = r.getByte(o).toLong
          }
        case ShortType =>
          new IntegralBounds(_.toShort) {
            def read(r: InternalRow, o: Int): Long = r.getShort(o).toLong
          }
        case IntegerType | DateType =>
          new IntegralBounds(_.toInt) {
            def read(r: InternalRow, o: Int): Long = r.getInt(o).toLong
          }
        case LongType | TimestampType | TimestampNTZType =>
          new IntegralBounds(v => v) {
            def read(r: InternalRow, o: Int): Long = r.getLong(o)
          }
        case FloatType =>
          new FloatingBounds(_.toFloat) {
            def read(r: InternalRow, o: Int): Double = r.getFloat(o).toDouble
          }
        case DoubleType =>
          new FloatingBounds(v => v) {
            def read(r: InternalRow, o: Int): Double = r.getDouble(o)
          }
        case StringType => new StringBounds
        case other      => new OrderedBounds(other)
      }
  }

  private abstract class IntegralBounds(box: Long => Any) extends Bounds {
    def read(row: InternalRow, ordinal: Int): Long
    private var seen = false
    private var lo = 0L
    private var hi = 0L
    def update(row: InternalRow, ordinal: Int): Unit = {
      val v = read(row, ordinal)
      if (!seen) { lo = v; hi = v; seen = true }
      else if (v < lo) lo = v
      else if (v > hi) hi = v
    }
    def min: Any = if (seen) box(lo) else null
    def max: Any = if (seen) box(hi) else null
  }

  private abstract class FloatingBounds(box: Double => Any) extends Bounds {
    def read(row: InternalRow, ordinal: Int): Double
    private var seen = false
    private var lo = 0.0
    private var hi = 0.0
    // NaN is above every number; -0.0 and 0.0 are equal (the first seen is kept)
    private def less(a: Double, b: Double) = !a.isNaN && (b.isNaN || a < b)
    def update(row: InternalRow, ordinal: Int): Unit = {
      val v = read(row, ordinal)
      if (!seen) { lo = v; hi = v; seen = true }
      else {
        if (less(v, lo)) lo = v
        if (less(hi, v)) hi = v
      }
    }
    def min: Any = if (seen) box(lo) else null
    def max: Any = if (seen) box(hi) else null
  }

  private final class StringBounds extends Bounds {
    private var lo: UTF8String = null
    private var hi: UTF8String = null
    def update(row: InternalRow, ordinal: Int): Unit = {
      val v = row.getUTF8String(ordinal)
      // copied when kept: the row's bytes are reused for the next row
      if (lo == null || v.compareTo(lo) < 0) lo = v.clone()
      if (hi == null || v.compareTo(hi) > 0) hi = v.clone()
    }
    def min: Any = lo
    def max: Any = hi
  }

  private final class OrderedBounds(t: DataType) extends Bounds {
    private val ord = TypeUtils.getInterpretedOrdering(t)
    private var lo: Any = null
    private var hi: Any = null
    def update(row: InternalRow, ordinal: Int): Unit = {
      val v = row.get(ordinal, t)
      if (lo == null || ord.lt(v, lo)) lo = v
      if (hi == null || ord.gt(v, hi)) hi = v
    }
    def min: Any = lo
    def max: Any = hi
  }
  private val AsciiMax = '\u007f'
  private val Utf8Max = "\udbff\udfff"

  /** An upper bound of `s` no longer than about `len` characters, as delta-spark writes the maximum
    * of a string column (so that a reader comparing UTF-8 bytes finds every value at or below it):
    * a prefix followed by U+007F when the next character is below it, else by U+10FFFF; the prefix
    * grows past a U+10FFFF it would end on, up to twice `len` (None beyond: no bound is written).
    */
  def maxPrefix(s: String, len: Int): Option[String] =
    if (s.length <= len) Some(s)
    else if (len <= 0) None
    else {
      // a prefix never ends inside a surrogate pair
      var end =
        if (Character.isHighSurrogate(s.charAt(len - 1)) && Character.isLowSurrogate(s.charAt(len)))
          len + 1
        else len
      var out: Option[String] = None
      var done = false
      while (!done && end <= 2 * len) {
        if (end >= s.length) { out = Some(s); done = true }
        else if (s.startsWith(Utf8Max, end)) end += 2
        else {
          val tail = if (s.charAt(end) < AsciiMax) AsciiMax.toString else Utf8Max
          out = Some(s.substring(0, end) + tail)
          done = true
        }
      }
      out
    }
}
