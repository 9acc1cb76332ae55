package txlog.txn

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{DeserializationFeature, ObjectMapper}
import com.fasterxml.jackson.databind.node.{JsonNodeFactory, ObjectNode}
import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.functions._

import txlog.errors.TxlogErrors

/** Files whose deleted rows change, as the actions of one commit (delta-spark's
  * `AddFile.removeRows`, which its DELETE, UPDATE and MERGE commit): a remove of the file with its
  * current deletion vector, and an add of the same path with its new one. The add keeps everything
  * else of the file (size, modification time, partition values, tags, row ids and their commit
  * version), is a data change, and its stats get `tightBounds` false ([[wideBounds]]).
  *
  * The input is rows of the read snapshot's `allFiles` with a column [[NewDv]]: the file's new DV,
  * its old one merged in (`DeletionVectorWriter.Target.merged`). An add whose new DV is missing or
  * deletes fewer rows than the old one (it would bring deleted rows back), or more rows than the
  * file has, fails the commit with INVALID_COMMIT_ACTIONS.
  *
  * {{{
  * val files = txn.readFiles(col("path") === path).withColumn(DvUpdates.NewDv, lit(newDv))
  * txn.removeFiles(DvUpdates.removes(files)).addFiles(DvUpdates.adds(root, files))
  * }}}
  */
private[txlog] object DvUpdates {

  /** The column of the new deletion vector (the actions' `deletionVector` struct). */
  val NewDv = "newDeletionVector"

  /** Numbers as written: decimals exact, trailing zeros kept. */
  private val mapper = new ObjectMapper()
    .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
    .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true))

  private def opt(files: DataFrame, name: String): Column =
    if (files.columns.contains(name)) col(name) else lit(null)

  /** The removes: each file as it is live, with its current deletion vector. */
  def removes(files: DataFrame): DataFrame = files.select(
    col("path"),
    lit(true).as("dataChange"),
    lit(true).as("extendedFileMetadata"),
    opt(files, "partitionValues").as("partitionValues"),
    opt(files, "size").as("size"),
    opt(files, "stats").as("stats"),
    opt(files, "tags").as("tags"),
    opt(files, "deletionVector").as("deletionVector"),
    opt(files, "baseRowId").as("baseRowId"),
    opt(files, "defaultRowCommitVersion").as("defaultRowCommitVersion")
  )

  /** The adds: each file with its new deletion vector, checked, and its stats' bounds wide. */
  def adds(table: String, files: DataFrame): DataFrame = {
    val oldCount =
      if (files.columns.contains("deletionVector")) col("deletionVector.cardinality").cast("long")
      else lit(null).cast("long")
    val records = get_json_object(col("stats"), "$.numRecords").cast("long")
    val check = udf { (path: String, old: java.lang.Long, now: java.lang.Long, n: java.lang.Long) =>
      checked(table, path, old, now, n)
    }
    val widen = udf((stats: String, old: java.lang.Long) => wideBounds(stats, old))
    files.select(
      col("path"),
      col("partitionValues"),
      col("size"),
      col("modificationTime"),
      lit(true).as("dataChange"),
      widen(col("stats"), oldCount).as("stats"),
      opt(files, "tags").as("tags"),
      when(
        check(col("path"), oldCount, col(NewDv).getField("cardinality").cast("long"), records),
        col(NewDv)
      ).as("deletionVector"),
      opt(files, "baseRowId").as("baseRowId"),
      opt(files, "defaultRowCommitVersion").as("defaultRowCommitVersion"),
      opt(files, "clusteringProvider").as("clusteringProvider")
    )
  }

  /** True, or INVALID_COMMIT_ACTIONS for a new DV that is missing, deletes fewer rows than the old
    * one `old` (null: none) or more than the file's `numRecords` `n` (null: unknown, which the
    * commit refuses for any add with a DV).
    */
  private def checked(
      table: String,
      path: String,
      old: java.lang.Long,
      now: java.lang.Long,
      n: java.lang.Long
  ): Boolean = {
    def refuse(detail: String) = throw TxlogErrors.invalidCommitActions(table, s"$path: $detail")
    if (now == null) refuse("the file's new deletion vector is missing")
    if (old != null && now.longValue < old.longValue) {
      refuse(s"its new deletion vector deletes $now rows, fewer than the $old of its current one")
    }
    if (n != null && now.longValue > n.longValue)
      refuse(s"its new deletion vector deletes $now rows of $n")
    true
  }

  /** `stats` with `tightBounds` false, as delta-spark's `updateStatsToWideBounds` leaves them for a
    * file whose deleted rows change: stats already wide are kept as they are; tight ones (the spec:
    * `tightBounds` absent is true) become wide, and a column's `nullCount` equal to the file's live
    * rows (`numRecords` less `oldCardinality`, the rows the current DV deletes), so null in every
    * live row, becomes `numRecords` (the spec's "all valid rows are null" once the bounds are
    * wide). Null and text that is not a JSON object are kept.
    */
  def wideBounds(stats: String, oldCardinality: java.lang.Long): String = {
    if (stats == null || stats.trim.isEmpty) return stats
    val node = scala.util.Try(mapper.readTree(stats)).toOption match {
      case Some(o: ObjectNode) => o
      case _                   => return stats
    }
    val tight = Option(node.get("tightBounds")).forall(_.asBoolean(true))
    if (!tight) return stats
    val physical = Option(node.get("numRecords")).filter(_.canConvertToLong).map(_.asLong)
    for {
      n <- physical
      nulls <- Option(node.get("nullCount")).collect { case o: ObjectNode => o }
    } widenNulls(nulls, n - Option(oldCardinality).fold(0L)(_.longValue), n)
    node.put("tightBounds", false)
    mapper.writeValueAsString(node)
  }

  private def widenNulls(o: ObjectNode, live: Long, physical: Long): Unit =
    o.fieldNames().asScala.toList.foreach { f =>
      o.get(f) match {
        case c: ObjectNode => widenNulls(c, live, physical)
        case v if v.isIntegralNumber && v.canConvertToLong && v.asLong == live => o.put(f, physical)
        case _                                                                 =>
      }
    }
}
