package txlog.scan

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.functions.{col, when}
import org.apache.spark.sql.types._

import txlog.Snapshot
import txlog.protocol.FileColumns
import txlog.replay.FileState.{TypedStatsColumn, TypedStatsRead}

/** Where a scan takes the statistics it compares: a checkpoint's typed statistics
  * (`add.stats_parsed`) when the snapshot was loaded from a checkpoint that has them, in types that
  * convert exactly to the columns' current ones; the JSON `stats` otherwise, and for every file
  * without typed statistics (the commits after the checkpoint). Only the leaves the filters compare
  * are read either way. When the checkpoint's footers prove that every add has typed statistics,
  * its JSON statistics are not read at all.
  *
  * {{{
  * val (files, stats) = ScanStats.plan(snapshot, Set(Seq("id")))
  * files.where(skipping.condition(filters, stats))
  * }}}
  */
private[txlog] object ScanStats {

  /** The file state to select from and the statistics column over it (logical names, `columns`'
    * leaves only, null where a file has none).
    */
  def plan(snapshot: Snapshot, columns: Set[Seq[String]]): (DataFrame, Column) = {
    val md = snapshot.metadata
    val (physical, logical) = FileColumns.statsSchemas(md, Some(columns))
    val json = FileColumns.statsParsed(col("add.stats"), md, Some(columns))
    val typed = for {
      source <- snapshot.typedStats if !snapshot.isCached && !hasEmptyStruct(physical)
      layout <- source.layout
      written <- layout.typed
      request <- requested(physical, written)
    } yield {
      val files = source.files(TypedStatsRead(request, json = !layout.everyAddTyped))
      val parsed = col(TypedStatsColumn)
      files -> when(parsed.isNotNull, parsed.cast(logical)).otherwise(json)
    }
    typed.getOrElse(snapshot.reconciledFiles -> json)
  }

  /** `want` (physical names, the columns' types) in the types the checkpoint wrote, where each
    * converts exactly to the wanted one; a leaf the checkpoint lacks is read as null. None when
    * some leaf's written type does not convert exactly: the JSON statistics are used instead.
    */
  private[scan] def requested(want: StructType, written: StructType): Option[StructType] = {
    val fields = want.fields.toSeq.map { f =>
      written.fields.find(_.name == f.name) match {
        case None => Some(f)
        case Some(w) =>
          (f.dataType, w.dataType) match {
            case (s: StructType, ws: StructType) => requested(s, ws).map(t => f.copy(dataType = t))
            case (_: StructType, _)              => None
            case (t, wt) if exact(wt, t)         => Some(f.copy(dataType = wt))
            case _                               => None
          }
      }
    }
    if (fields.forall(_.isDefined)) Some(StructType(fields.flatten)) else None
  }

  /** Whether every value of `from` converts to `to` without loss (the widenings of "Type Widening",
    * and equal types).
    */
  private[scan] def exact(from: DataType, to: DataType): Boolean = (from, to) match {
    case (a, b) if a == b                                 => true
    case (ByteType, ShortType | IntegerType | LongType)   => true
    case (ShortType, IntegerType | LongType)              => true
    case (IntegerType, LongType)                          => true
    case (ByteType | ShortType | IntegerType, DoubleType) => true
    case (FloatType, DoubleType)                          => true
    case (DateType, TimestampNTZType)                     => true
    case (ByteType, d: DecimalType)                       => d.precision - d.scale >= 3
    case (ShortType, d: DecimalType)                      => d.precision - d.scale >= 5
    case (IntegerType, d: DecimalType)                    => d.precision - d.scale >= 10
    case (LongType, d: DecimalType)                       => d.precision - d.scale >= 20
    case (a: DecimalType, b: DecimalType) =>
      b.scale >= a.scale && b.precision - b.scale >= a.precision - a.scale
    case _ => false
  }

  /** A struct without fields cannot be read from parquet. */
  private def hasEmptyStruct(t: StructType): Boolean = t.fields.exists {
    _.dataType match {
      case s: StructType => s.isEmpty || hasEmptyStruct(s)
      case _             => false
    }
  }
}
