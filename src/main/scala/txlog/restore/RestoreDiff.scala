package txlog.restore

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.functions.{coalesce, col, lit}

import txlog.Snapshot
import txlog.protocol.ActionSchemas
import txlog.replay.FileKeys

/** The file actions of a restore, as DataFrames (nothing reaches the driver): a logical file is
  * (path, deletion vector unique id) ("Action Reconciliation"), paths compared in canonical form.
  *
  *   - `toAdd`: the add actions of the target version whose logical file is not live now, as they
  *     were then (stats, partition values, tags, deletion vector, row ids) but with `dataChange =
  *     true`.
  *   - `toRemove`: the live files that are not live in the target version, as removes carrying what
  *     the add carried (`extendedFileMetadata = true`, size, partition values, stats, tags,
  *     deletion vector, row ids); the commit sets `deletionTimestamp` to its time.
  */
private[txlog] final case class RestoreDiff(toAdd: DataFrame, toRemove: DataFrame)

private[txlog] object RestoreDiff {
  private val Path = "_restorePathKey"
  private val Dv = "_restoreDvKey"

  def of(latest: Snapshot, target: Snapshot): RestoreDiff = {
    val root = latest.tablePath
    def keyed(s: Snapshot): DataFrame = s.allFiles
      .withColumn(Path, FileKeys.pathKey(col("path"), root))
      .withColumn(Dv, coalesce(FileKeys.dvId(col("deletionVector")), lit("")))
    val past = keyed(target)
    val now = keyed(latest)
    def missingFrom(a: DataFrame, b: DataFrame): DataFrame = {
      val k = b.select(col(Path).as("k"), col(Dv).as("d"))
      a.join(k, a(Path) === k("k") && a(Dv) === k("d"), "left_anti")
    }
    val addFields: Seq[Column] = ActionSchemas.add.fieldNames.toSeq.map {
      case "dataChange" => lit(true).as("dataChange")
      case f            => col(f)
    }
    val removeFields: Seq[Column] = ActionSchemas.remove.fieldNames.toSeq.collect {
      case "dataChange"                  => lit(true).as("dataChange")
      case "extendedFileMetadata"        => lit(true).as("extendedFileMetadata")
      case f if f != "deletionTimestamp" => col(f)
    }
    RestoreDiff(
      missingFrom(past, now).select(addFields: _*),
      missingFrom(now, past).select(removeFields: _*)
    )
  }
}
