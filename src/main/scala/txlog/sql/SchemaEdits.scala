package txlog.sql

import java.util.Locale

import org.apache.spark.sql.connector.catalog.TableChange.{After, ColumnPosition, First}
import org.apache.spark.sql.types._

/** Edits of a schema at a column path, as `ALTER TABLE` names them: a path of field names where
  * `element` steps into an array's elements and `key` / `value` into a map's (Spark's naming of
  * nested fields in a `TableChange`). Names match case-insensitively, an exact match first. A path
  * that names no field is [[SchemaEdits.NoSuchField]], which the caller turns into its typed error.
  *
  * {{{
  * val s2 = SchemaEdits.add(schema, Seq("s"), StructField("c", LongType), null)
  * }}}
  */
private[txlog] object SchemaEdits {

  /** No field at `path` (dotted). */
  final case class NoSuchField(path: String) extends Exception(s"no field $path")

  /** The index of `name` in `s`: the exact name first, else case-insensitively. */
  def indexOf(s: StructType, name: String): Option[Int] = {
    val exact = s.fields.indexWhere(_.name == name)
    val any =
      if (exact >= 0) exact
      else s.fields.indexWhere(_.name.toLowerCase(Locale.ROOT) == name.toLowerCase(Locale.ROOT))
    if (any >= 0) Some(any) else None
  }

  /** The field at `path`, when there is one. */
  def field(schema: StructType, path: Seq[String]): Option[StructField] = {
    def in(t: DataType, p: Seq[String]): Option[StructField] = (t, p) match {
      case (s: StructType, h +: rest) =>
        indexOf(s, h).flatMap { i =>
          if (rest.isEmpty) Some(s.fields(i)) else in(s.fields(i).dataType, rest)
        }
      case (a: ArrayType, "element" +: rest) if rest.nonEmpty => in(a.elementType, rest)
      case (m: MapType, "key" +: rest) if rest.nonEmpty       => in(m.keyType, rest)
      case (m: MapType, "value" +: rest) if rest.nonEmpty     => in(m.valueType, rest)
      case _                                                  => None
    }
    in(schema, path)
  }

  /** `schema` with the struct at `parent` (the top level when empty) replaced by `f` of it. */
  def inStruct(schema: StructType, parent: Seq[String])(f: StructType => StructType): StructType = {
    def in(t: DataType, p: Seq[String]): DataType = (t, p) match {
      case (s: StructType, Seq()) => f(s)
      case (s: StructType, h +: rest) =>
        val i = indexOf(s, h).getOrElse(throw NoSuchField(parent.mkString(".")))
        val fd = s.fields(i)
        StructType(s.fields.updated(i, fd.copy(dataType = in(fd.dataType, rest))))
      case (a: ArrayType, "element" +: rest) => a.copy(elementType = in(a.elementType, rest))
      case (m: MapType, "key" +: rest)       => m.copy(keyType = in(m.keyType, rest))
      case (m: MapType, "value" +: rest)     => m.copy(valueType = in(m.valueType, rest))
      case _                                 => throw NoSuchField(parent.mkString("."))
    }
    in(schema, parent).asInstanceOf[StructType]
  }

  /** `schema` with the field at `path` replaced by `f` of it. */
  def update(schema: StructType, path: Seq[String])(f: StructField => StructField): StructType =
    inStruct(schema, path.init) { s =>
      val i = indexOf(s, path.last).getOrElse(throw NoSuchField(path.mkString(".")))
      StructType(s.fields.updated(i, f(s.fields(i))))
    }

  /** `schema` with `added` in the struct at `parent`, at `position` (null: at the end). */
  def add(
      schema: StructType,
      parent: Seq[String],
      added: StructField,
      position: ColumnPosition
  ): StructType = inStruct(schema, parent)(s => place(s, added, position, parent))

  /** `schema` without the field at `path`. */
  def drop(schema: StructType, path: Seq[String]): StructType =
    inStruct(schema, path.init) { s =>
      val i = indexOf(s, path.last).getOrElse(throw NoSuchField(path.mkString(".")))
      StructType(s.fields.patch(i, Nil, 1))
    }

  /** `schema` with the field at `path` moved to `position` in its struct. */
  def move(schema: StructType, path: Seq[String], position: ColumnPosition): StructType =
    inStruct(schema, path.init) { s =>
      val i = indexOf(s, path.last).getOrElse(throw NoSuchField(path.mkString(".")))
      place(StructType(s.fields.patch(i, Nil, 1)), s.fields(i), position, path.init)
    }

  private def place(
      s: StructType,
      f: StructField,
      position: ColumnPosition,
      parent: Seq[String]
  ): StructType = position match {
    case null     => StructType(s.fields :+ f)
    case _: First => StructType(f +: s.fields)
    case a: After =>
      val i =
        indexOf(s, a.column()).getOrElse(throw NoSuchField((parent :+ a.column()).mkString(".")))
      StructType(s.fields.patch(i + 1, Seq(f), 0))
    case other => throw new IllegalArgumentException(s"unknown column position $other")
  }
}
