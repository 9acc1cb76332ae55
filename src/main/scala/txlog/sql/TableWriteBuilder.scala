package txlog.sql

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.connector.write.{
  LogicalWriteInfo,
  SupportsOverwrite,
  SupportsTruncate,
  V1Write,
  Write,
  WriteBuilder
}
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.sources.{AlwaysTrue, Filter, InsertableRelation}
import org.apache.spark.sql.types.StructType

import txlog.{DeltaLog, WriteOptions}
import txlog.errors.TxlogErrors
import txlog.write.{DataFrameWrite, DynamicPartitions, IdentityWrites}

/** A write to a txlog table by name or path: Spark hands the rows over as a DataFrame (its V1 write
  * fallback) and txlog writes them with `DeltaLog.write`, one commit. Append by default; `truncate`
  * replaces every file, `overwrite(filters)` the files the filters select (the `replaceWhere` of
  * `DeltaLog.write`: every row written must satisfy them).
  */
private[txlog] final class TableWriteBuilder(
    path: String,
    schema: StructType,
    info: LogicalWriteInfo,
    capture: Option[DmlCapture] = None,
    mergeSchema: Boolean = false
) extends WriteBuilder
    with SupportsOverwrite
    with SupportsTruncate {

  // None: an append; Some(None): every row replaced; Some(Some(sql)): the rows sql selects
  private var replace: Option[Option[String]] = None

  override def truncate(): WriteBuilder = { replace = Some(None); this }

  override def overwrite(filters: Array[Filter]): WriteBuilder = {
    val kept = filters.toSeq.filterNot(_.isInstanceOf[AlwaysTrue])
    replace = Some(
      if (kept.isEmpty) None
      else
        Some(FilterSql.conjunction(kept, info.schema().fieldNames.toSet).getOrElse(unstated(kept)))
    )
    this
  }

  /** The condition as Spark 3.4 and later hand it, stated node by node ([[PredicateSql]]): Spark's
    * own conversion to filters can keep a part of a condition only, and an overwrite by that part
    * would replace other rows than the statement's.
    */
  override def overwrite(predicates: Array[Predicate]): WriteBuilder = {
    val kept = predicates.toSeq.filterNot(_.name() == "ALWAYS_TRUE")
    val top = info.schema().fieldNames.toSet
    val each = kept.map(p => PredicateSql.of(p, top).getOrElse(unstated(Seq(p))))
    replace = Some(if (each.isEmpty) None else Some(each.mkString(" AND ")))
    this
  }

  private def unstated(condition: Seq[AnyRef]): Nothing = throw TxlogErrors.invalidArgument(
    "overwrite",
    s"txlog cannot state the condition ${condition.mkString(" AND ")} as a replaceWhere."
  )

  override def build(): Write = {
    val asked = TableWriteBuilder.options(info)
    val base = if (mergeSchema) WriteOptions(mergeSchema = true) else asked
    val options = replace match {
      case None       => base
      case Some(None) => WriteOptions(mode = "overwrite", mergeSchema = base.mergeSchema)
      case Some(Some(where)) =>
        WriteOptions(mode = "overwrite", replaceWhere = Some(where), mergeSchema = base.mergeSchema)
    }
    // delta-spark's write option partitionOverwriteMode = dynamic: an overwrite of every row
    // replaces only the partitions written (with a condition it is INVALID_ARGUMENT)
    val dynamic = TableWriteBuilder.dynamicOption(info).exists { v =>
      DynamicPartitions.dynamic(SparkSession.active, Some(v), ownCondition = false)
    }
    // an insert-only MERGE of DeltaLog.merge is planned by Spark as an append: its commit goes back
    val after = (w: txlog.WriteResult) =>
      capture.foreach(c => DmlCapture.ofAppend(w).foreach(c.set))
    // an identity column the INSERT left out, which Spark fills with NULL, is generated
    val rows = (df: DataFrame) => IdentityWrites.leftOutByInsert(path, df, schema)
    TableWriteBuilder.write(path, options, after, dynamic && replace.isDefined, rows)
  }
}

private[txlog] object TableWriteBuilder {

  private val Known = Set("mergeschema", DynamicPartitions.Option.toLowerCase(Locale.ROOT))

  /** The options a write by name takes (`mergeSchema`, `partitionOverwriteMode`); any other is
    * INVALID_ARGUMENT.
    */
  def options(info: LogicalWriteInfo): WriteOptions = {
    val names = info.options().asCaseSensitiveMap().asScala.toMap
    names.keys.filterNot(k => Known(k.toLowerCase(Locale.ROOT))).toSeq.sorted.headOption.foreach {
      k =>
        throw TxlogErrors.invalidArgument(
          k,
          "a write to a txlog table takes only mergeSchema and partitionOverwriteMode."
        )
    }
    val merge = names.collect {
      case (k, v) if k.equalsIgnoreCase("mergeSchema") => "mergeSchema" -> v
    }
    WriteOptions(mergeSchema = txlog.util.OptionValues.flag(merge, "mergeSchema", default = false))
  }

  /** The write option `partitionOverwriteMode`, when given. */
  def dynamicOption(info: LogicalWriteInfo): Option[String] =
    info.options().asCaseSensitiveMap().asScala.collectFirst {
      case (k, v) if k.equalsIgnoreCase(DynamicPartitions.Option) => v
    }

  /** The V1 write of `options` to the table at `path`, then `after` (one commit); `dynamic`: an
    * overwrite replaces the partitions written only ([[txlog.write.DynamicPartitions]]).
    */
  def write(
      path: String,
      options: WriteOptions,
      after: txlog.WriteResult => Unit = _ => (),
      dynamic: Boolean = false,
      rows: DataFrame => DataFrame = identity
  ): Write =
    new V1Write {
      override def toInsertableRelation(): InsertableRelation = new InsertableRelation {
        override def insert(data: DataFrame, overwrite: Boolean): Unit = {
          val log = DeltaLog.forTable(data.sparkSession, path)
          after(DataFrameWrite.write(log.context, rows(data), options, dynamic))
        }
      }
    }
}
