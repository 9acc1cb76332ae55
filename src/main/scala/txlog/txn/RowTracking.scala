package txlog.txn

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.expressions.Window
import org.apache.spark.sql.functions._

import txlog.{Metadata, Protocol}
import txlog.errors.TxlogErrors
import txlog.util.Jobs
import txlog.protocol.DomainAction
import txlog.protocol.ColumnMapping
import txlog.protocol.RowTrackingSpec
import txlog.protocol.RowTrackingSpec.ColumnNameKeys

/** Row tracking on commit ("Row Tracking"): fresh row ids for the commit's new files. */
private[txlog] object RowTracking {

  /** The metadata a commit writes, with the materialized column names row tracking needs once the
    * protocol `p` supports it ("Row Tracking": assigned before it is enabled, unique, never equal
    * to a column's logical or physical name, kept in every later version). The names come from the
    * table's `current` metadata when it has them (whatever the staged metadata says, as delta-spark
    * keeps them), else from the `staged` metadata, else new ones. A commit that stages no metadata
    * but brings row tracking into the protocol (`wasSupported` false) writes the current metadata
    * with the names. INVALID_METADATA when a name is a column's.
    */
  def withColumnNames(
      table: String,
      p: Protocol,
      wasSupported: Boolean,
      current: Option[Metadata],
      staged: Option[Metadata]
  ): Option[Metadata] = {
    val base = staged.orElse(current.filter(_ => !wasSupported))
    if (!p.hasWriterFeature("rowTracking") || base.isEmpty) return staged
    val md = base.get
    val names = ColumnNameKeys.map { case (key, prefix) =>
      key -> current
        .flatMap(_.configuration.get(key))
        .orElse(md.configuration.get(key))
        .getOrElse(prefix + java.util.UUID.randomUUID())
    }
    val named = md.copy(configuration = md.configuration ++ names)
    val columns = named.schema.fields.toSeq.flatMap { f =>
      Seq(f.name) ++ ColumnMapping.physicalNameOf(f)
    }
    names.find { case (_, name) => columns.contains(name) }.foreach { case (key, name) =>
      throw TxlogErrors.invalidMetadata(
        table,
        s"$key = $name is the name of a column of the schema; row tracking's materialized " +
          "columns need names of their own"
      )
    }
    if (staged.isEmpty && named == md) None else Some(named)
  }

  /** The adds of a commit of `version` with `baseRowId` and `defaultRowCommitVersion` assigned when
    * the table supports row tracking, and the `delta.rowTracking` domain action carrying the new
    * high water mark (None when nothing changes). `highWaterMark` is the domain's current one.
    * Called again on every rebase, with the winner's high water mark.
    *
    * Files without a baseRowId get consecutive ranges of ids after the high water mark, in path
    * order, each as long as its `numRecords` stat (required: row tracking cannot work without it).
    * One job sums the records; the ranges come from a window over the commit's adds (they grow with
    * the commit, not with the table).
    */
  def assign(
      adds: DataFrame,
      protocol: Protocol,
      metadata: Metadata,
      highWaterMark: Option[Long],
      version: Long
  ): (DataFrame, Option[DomainAction]) = {
    if (!protocol.hasWriterFeature("rowTracking")) return (adds, None)
    val hasBase = adds.columns.contains("baseRowId")
    val existing: Column = if (hasBase) col("baseRowId") else lit(null).cast("long")
    val records = get_json_object(col("stats"), "$.numRecords").cast("long")
    val fresh = existing.isNull
    val spark = adds.sparkSession
    val (missing, total, maxExisting) = Jobs.named(spark, s"count records for row ids v$version") {
      val r = adds
        .agg(
          count(when(fresh && records.isNull, lit(1))),
          coalesce(sum(when(fresh, records)), lit(0L)),
          max(when(!fresh, existing + coalesce(records, lit(1L)) - 1))
        )
        .head()
      (r.getLong(0), r.getLong(1), Option(r.get(2)).map(_.asInstanceOf[Number].longValue))
    }
    if (missing > 0) {
      throw TxlogErrors.invalidCommitActions(
        metadata.id,
        s"$missing added file(s) have no numRecords in their stats; row tracking needs them"
      )
    }
    val start = highWaterMark.getOrElse(-1L) + 1
    val ordered = Window.orderBy(col("path")).rowsBetween(Window.unboundedPreceding, -1)
    val before = coalesce(sum(when(fresh, records)).over(ordered), lit(0L))
    val withIds = adds
      .withColumn("baseRowId", when(fresh, lit(start) + before).otherwise(existing))
      .withColumn(
        "defaultRowCommitVersion",
        if (adds.columns.contains("defaultRowCommitVersion")) {
          coalesce(col("defaultRowCommitVersion"), lit(version))
        } else lit(version)
      )
    val newMark = (highWaterMark.toSeq ++ maxExisting ++
      (if (total > 0) Seq(start + total - 1) else Nil)).reduceOption(_ max _)
    val domain = newMark
      .filter(m => !highWaterMark.contains(m))
      .map(m =>
        DomainAction(RowTrackingSpec.Domain, s"""{"rowIdHighWaterMark":$m}""", removed = false)
      )
    (withIds, domain)
  }
}
