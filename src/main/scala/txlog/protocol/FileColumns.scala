package txlog.protocol

import org.apache.spark.sql.Column
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._

import org.apache.spark.sql.txlog.SparkExpressions

import txlog.Metadata

/** Typed views of an add action's string-encoded fields: partition values cast to the partition
  * columns' types ("Partition Value Serialization") and the JSON stats parsed into a struct
  * ("Per-file Statistics"). Under column mapping both are keyed by physical names in the log; the
  * typed columns carry the logical names.
  */
private[txlog] object FileColumns {

  /** The column's name in data files and file actions: its physical name under column mapping. */
  def physicalName(f: StructField): String =
    ColumnMapping.physicalName(f)

  /** `partitionValues_parsed`: one typed field per partition column; null when unpartitioned.
    * Fields carry the logical names, or the physical ones with `physical` (as checkpoints do).
    */
  def partitionValuesParsed(
      partitionValues: Column,
      md: Metadata,
      physical: Boolean = false
  ): Column = {
    val fields = partitionFields(md).map { f =>
      val raw = partitionValues(physicalName(f))
      // "An empty string for any type translates to a null partition value."
      SparkExpressions
        .tryCast(when(raw =!= lit(""), raw), f.dataType)
        .as(if (physical) physicalName(f) else f.name)
    }
    if (fields.isEmpty) lit(null).cast(new StructType()) else struct(fields: _*)
  }

  /** The first partition column whose value in `partitionValues` is neither null, empty (null) nor
    * of its column's type, as a struct (column, value, type); null when every value parses. Readers
    * refuse such a file rather than read its value as null.
    */
  def unparsedPartitionValue(partitionValues: Column, md: Metadata): Column = {
    val checks = partitionFields(md).map { f =>
      val raw = partitionValues(physicalName(f))
      when(
        raw.isNotNull && raw =!= lit("") && SparkExpressions.tryCast(raw, f.dataType).isNull,
        struct(lit(f.name).as("column"), raw.as("value"), lit(f.dataType.simpleString).as("type"))
      )
    }
    if (checks.isEmpty) lit(null).cast("struct<column:string,value:string,type:string>")
    else coalesce(checks: _*)
  }

  /** The schema fields of the partition columns (none when the schema does not name them). */
  def partitionFields(md: Metadata): Seq[StructField] =
    md.partitionColumns.flatMap(name => md.schema.fields.find(_.name.equalsIgnoreCase(name)))

  /** `stats_parsed` keyed by physical names, as a checkpoint stores it ("Checkpoint Schema");
    * struct fields that would be empty (no column has min/max stats) are left out, since parquet
    * cannot store an empty struct.
    */
  def statsParsedPhysical(stats: Column, md: Metadata): Column = {
    val dataFields =
      md.schema.fields.toSeq.filterNot(f => md.partitionColumns.exists(_.equalsIgnoreCase(f.name)))
    val mm = nonEmpty(minMax(dataFields, physical = true))
    val nulls = nonEmpty(nullCounts(dataFields, physical = true))
    var schema = new StructType().add("numRecords", LongType)
    mm.foreach(t => schema = schema.add("minValues", t).add("maxValues", t))
    nulls.foreach(t => schema = schema.add("nullCount", t))
    schema = schema.add("tightBounds", BooleanType)
    from_json(stats, schema, Map("mode" -> "PERMISSIVE"))
  }

  /** `t` without empty nested structs, or None when nothing is left. */
  private def nonEmpty(t: StructType): Option[StructType] = {
    val kept = t.fields.toSeq.flatMap { f =>
      f.dataType match {
        case s: StructType => nonEmpty(s).map(n => f.copy(dataType = n))
        case _             => Some(f)
      }
    }
    if (kept.isEmpty) None else Some(StructType(kept))
  }

  /** `stats_parsed`: numRecords, minValues, maxValues, nullCount and tightBounds; with `only`, the
    * statistics of those columns alone (paths of logical names; the others are left out of the
    * structs, and the JSON parser skips them instead of converting them).
    */
  def statsParsed(
      stats: Column,
      md: Metadata,
      only: Option[Set[Seq[String]]] = None
  ): Column = {
    val (physical, logical) = statsSchemas(md, only)
    from_json(stats, physical, Map("mode" -> "PERMISSIVE")).cast(logical)
  }

  /** The struct of [[statsParsed]] keyed by physical names (as JSON statistics and a checkpoint's
    * `stats_parsed` are) and by logical names, with the same fields in the same order, so that a
    * cast of the first to the second renames.
    */
  def statsSchemas(md: Metadata, only: Option[Set[Seq[String]]]): (StructType, StructType) = {
    val dataFields =
      md.schema.fields.toSeq.filterNot(f => md.partitionColumns.exists(_.equalsIgnoreCase(f.name)))
    val keep: Seq[String] => Boolean = p => only.forall(_.contains(p))
    def schema(physical: Boolean) = new StructType()
      .add("numRecords", LongType)
      .add("minValues", minMax(dataFields, physical, keep))
      .add("maxValues", minMax(dataFields, physical, keep))
      .add("nullCount", nullCounts(dataFields, physical, keep))
      .add("tightBounds", BooleanType)
    (schema(physical = true), schema(physical = false))
  }

  /** The min/max struct of `fields`; with `keep` (on a leaf's path of logical names under
    * `prefix`), its leaves that pass, and nested structs that keep none left out.
    */
  private def minMax(
      fields: Seq[StructField],
      physical: Boolean,
      keep: Seq[String] => Boolean = _ => true
  ): StructType = statsStruct(fields, physical, keep, Nil) {
    case _: ArrayType | _: MapType | BinaryType | BooleanType => None
    case t if t.typeName == "variant"                         => None
    case t                                                    => Some(t)
  }

  /** The null count struct of `fields`: a count for every leaf `keep` passes. */
  private def nullCounts(
      fields: Seq[StructField],
      physical: Boolean,
      keep: Seq[String] => Boolean = _ => true
  ): StructType = statsStruct(fields, physical, keep, Nil)(_ => Some(LongType))

  /** `fields` as a statistics struct: nested structs kept as structs, each leaf `keep` passes as
    * the type `leaf` gives it (None: the statistic has no such leaf).
    */
  private def statsStruct(
      fields: Seq[StructField],
      physical: Boolean,
      keep: Seq[String] => Boolean,
      prefix: Seq[String]
  )(leaf: DataType => Option[DataType]): StructType =
    StructType(fields.flatMap { f =>
      val name = if (physical) physicalName(f) else f.name
      val path = prefix :+ f.name
      f.dataType match {
        case s: StructType =>
          val inner = statsStruct(s.fields.toSeq, physical, keep, path)(leaf)
          if (inner.isEmpty && !keep(path) && s.nonEmpty) None else Some(StructField(name, inner))
        case t if keep(path) => leaf(t).map(StructField(name, _))
        case _               => None
      }
    })
}
