package txlog.sql

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.connector.write.{
  LogicalWriteInfo,
  SupportsOverwrite,
  SupportsTruncate,
  V1Write,
  Write,
  WriteBuilder
}
import org.apache.spark.sql.sources.{AlwaysTrue, Filter, InsertableRelation}

import txlog.{DeltaLog, WriteOptions}
import txlog.errors.TxlogErrors

/** A write to a txlog table by name or path: Spark hands the rows over as a DataFrame (its V1 write
  * fallback) and txlog writes them with `DeltaLog.write`, one commit. Append by default; `truncate`
  * replaces every file, `overwrite(filters)` the files the filters select (the `replaceWhere` of
  * `DeltaLog.write`: every row written must satisfy them).
  */
private[txlog] final class TableWriteBuilder(path: String, info: LogicalWriteInfo)
    extends WriteBuilder
    with SupportsOverwrite
    with SupportsTruncate {

  private var replace: Option[Seq[Filter]] = None

  override def truncate(): WriteBuilder = { replace = Some(Nil); this }

  override def overwrite(filters: Array[Filter]): WriteBuilder = {
    replace = Some(filters.toSeq.filterNot(_.isInstanceOf[AlwaysTrue]))
    this
  }

  override def build(): Write = {
    val base = TableWriteBuilder.options(info)
    val options = replace match {
      case None      => base
      case Some(Nil) => WriteOptions(mode = "overwrite", mergeSchema = base.mergeSchema)
      case Some(filters) =>
        val where = FilterSql
          .conjunction(filters, info.schema().fieldNames.toSet)
          .getOrElse(
            throw TxlogErrors.invalidArgument(
              "overwrite",
              s"txlog cannot state the condition ${filters.mkString(" AND ")} as a replaceWhere."
            )
          )
        WriteOptions(mode = "overwrite", replaceWhere = Some(where), mergeSchema = base.mergeSchema)
    }
    TableWriteBuilder.write(path, options)
  }
}

private[txlog] object TableWriteBuilder {

  /** The options a write by name takes (`mergeSchema`); any other is INVALID_ARGUMENT. */
  def options(info: LogicalWriteInfo): WriteOptions = {
    val names = info.options().asCaseSensitiveMap().asScala.toMap
    names.keys.filterNot(_.equalsIgnoreCase("mergeSchema")).toSeq.sorted.headOption.foreach { k =>
      throw TxlogErrors.invalidArgument(k, "a write to a txlog table takes only mergeSchema.")
    }
    val merge = names.collect {
      case (k, v) if k.equalsIgnoreCase("mergeSchema") => "mergeSchema" -> v
    }
    WriteOptions(mergeSchema = txlog.util.OptionValues.flag(merge, "mergeSchema", default = false))
  }

  /** The V1 write of `options` to the table at `path`, then `after` (one commit). */
  def write(path: String, options: WriteOptions, after: () => Unit = () => ()): Write =
    new V1Write {
      override def toInsertableRelation(): InsertableRelation = new InsertableRelation {
        override def insert(data: DataFrame, overwrite: Boolean): Unit = {
          DeltaLog.write(data, path, options)
          after()
        }
      }
    }
}
