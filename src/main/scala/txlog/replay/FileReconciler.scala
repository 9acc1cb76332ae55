package txlog.replay

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.{Column, DataFrame, Row, SparkSession}
import org.apache.spark.sql.expressions.Window
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{StringType, StructType}

import txlog.errors.TxlogErrors
import txlog.protocol.ActionSchemas
import txlog.replay.NonFileState.invalidLine

/** Reconciles file actions into one row per logical file ("Action Reconciliation": keep the newest
  * reference to each (path, deletionVector.uniqueId)).
  *
  * A checkpoint is already reconciled, so it is never shuffled: only the tail (the commits after
  * it) is reconciled with a window, and checkpoint rows whose key the tail touches are dropped by a
  * broadcast membership test of the tail's key hashes ([[TouchedKeyHashes]]).
  */
private[txlog] object FileReconciler {
  import FileKeys.{DvKey, PathKey}

  /** Reconciles the `tail` actions onto `base`, an already reconciled file state (a keyed
    * checkpoint, or a previous snapshot's files). Output columns: pathKey, dvId, add, remove, with
    * exactly one of add and remove set.
    *
    * With `hashes` (the [[TouchedKeyHashes]] of the tail) the base is never shuffled: rows whose
    * key hash the tail does not touch pass a filter as they are, and only the hash-matching rows
    * are anti-joined with the tail's keys. Without them (past the driver budget for the hashes) the
    * base is anti-joined by a shuffle.
    */
  def reconcile(
      base: Option[DataFrame],
      tail: DataFrame,
      root: String,
      hashes: Option[Broadcast[Array[Long]]]
  ): DataFrame = {
    val tailFiles = keyed(tail, root)
    val winners = newest(tailFiles).select(PathKey, DvKey, "add", "remove")
    base.fold(winners) { b =>
      val touched = tailFiles.select(PathKey, DvKey)
      val survivors = hashes match {
        case Some(h) =>
          val maybeTouched = TouchedKeyHashes.member(h)
          b.where(!maybeTouched)
            .unionByName(b.where(maybeTouched).join(touched, Seq(PathKey, DvKey), "left_anti"))
        case None => b.join(touched, Seq(PathKey, DvKey), "left_anti")
      }
      // a scan's base may carry typed statistics beside its files; the tail's rows have none
      val extra = b.columns.toSeq.filterNot(Set(PathKey, DvKey, "add", "remove"))
      survivors
        .select((Seq(PathKey, DvKey, "add", "remove") ++ extra).map(col): _*)
        .unionByName(winners, allowMissingColumns = extra.nonEmpty)
    }
  }

  /** The newest row per (pathKey, dvId) of `keyed` (rows of [[keyed]], any extra columns kept), by
    * a window over the key.
    */
  def newest(keyed: DataFrame): DataFrame = {
    val byKey = Window
      .partitionBy(col(PathKey), col(DvKey))
      .orderBy(col("version").desc, col("idx").desc)
    keyed.withColumn("_rank", row_number().over(byKey)).where(col("_rank") === 1).drop("_rank")
  }

  /** Raises MALFORMED_LOG_FILE for a corrupt line, in the task that meets it: the error (with its
    * file and version) reaches the driver as the cause of the job's failure. Only evaluated on
    * corrupt rows; never returns.
    */
  private val failCorrupt = udf { (file: String, version: Long, idx: Long, text: String) =>
    if (text != null) throw TxlogErrors.malformedLogFile(file, version, invalidLine(idx, text))
    false
  }

  /** File actions of `actions` with their key columns; an absent DV keys as "". A row whose line
    * was not a valid action (`_corrupt_record` set) fails the job with MALFORMED_LOG_FILE naming
    * its file and version.
    */
  def keyed(actions: DataFrame, root: String, keep: Seq[String] = Nil): DataFrame = {
    val path = coalesce(col("add.path"), col("remove.path"))
    val dv = coalesce(col("add.deletionVector"), col("remove.deletionVector"))
    val isFile = col("add.path").isNotNull || col("remove.path").isNotNull
    val corrupt = col(LogActions.CorruptColumn)
    val checked =
      if (!actions.columns.contains(LogActions.CorruptColumn)) isFile
      else {
        val failed = failCorrupt(col("file"), col("version"), col("idx"), corrupt)
        when(corrupt.isNotNull, failed).otherwise(isFile)
      }
    actions
      .where(checked)
      .select(
        (Seq(
          col("version"),
          col("idx"),
          col("add"),
          col("remove"),
          FileKeys.pathKey(path, root).as(PathKey),
          coalesce(FileKeys.dvId(dv), lit("")).as(DvKey)
        ) ++ keep.map(col)): _*
      )
  }
}
