package txlog.repair

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import txlog.checkpoint.CheckpointStaging
import txlog.log.{CheckpointInstance, LastCheckpoint, LogWrites}
import txlog.protocol.CheckpointNaming
import txlog.protocol.FileNames
import txlog.log.TablePath

/** `_last_checkpoint` rebuilt from a checkpoint on storage ("Last Checkpoint File Schema"): its
  * version, its number of actions and of add actions (counted by one Spark job over its files, and
  * over its sidecars for a V2 checkpoint that has some), its parts and its size in bytes. Written
  * in place of whatever is there, atomically, with its checksum.
  */
private[txlog] object LastCheckpointRebuild {

  def of(spark: SparkSession, table: TablePath, cp: CheckpointInstance): LastCheckpoint = {
    val format = cp.naming match {
      case CheckpointNaming.Uuid(_, f) => f
      case _                           => "parquet"
    }
    val files = cp.files.map(f => new Path(f.file.path))
    val top = CheckpointStaging.counts(spark, table, files, format)
    val sidecars = if (top.sidecars == 0) Nil else sidecarFiles(spark, table, files, format)
    val side = CheckpointStaging.counts(spark, table, sidecars.map(_._1), "parquet")
    LastCheckpoint(
      cp.version,
      top.total + side.adds + side.removes,
      cp.parts,
      Some(cp.sizeInBytes + sidecars.map(_._2).sum),
      Some(top.adds + side.adds),
      None
    )
  }

  /** The sidecar files a V2 checkpoint names, with their sizes (one row per sidecar). */
  private def sidecarFiles(
      spark: SparkSession,
      table: TablePath,
      files: Seq[Path],
      format: String
  ): Seq[(Path, Long)] = {
    val schema = new StructType().add(
      "sidecar",
      new StructType().add("path", StringType).add("sizeInBytes", LongType)
    )
    spark.read
      .options(table.readOptions)
      .schema(schema)
      .format(format)
      .load(files.map(_.toString): _*)
      .where(col("sidecar").isNotNull)
      .select("sidecar.path", "sidecar.sizeInBytes")
      .collect()
      .toSeq
      .map { r =>
        val p = r.getString(0)
        val uri = new java.net.URI(p)
        val path = if (uri.isAbsolute) new Path(uri) else new Path(table.sidecarDir, p)
        (path, if (r.isNullAt(1)) 0L else r.getLong(1))
      }
  }

  /** Replaces `_last_checkpoint` with `lc`, even when the one there names a newer checkpoint. */
  def write(table: TablePath, lc: LastCheckpoint): Unit =
    LogWrites.overwrite(
      table.fs,
      new Path(table.logDir, FileNames.LastCheckpoint),
      LastCheckpoint.toJson(lc).getBytes(UTF_8)
    )

  /** Removes `_last_checkpoint` (when no checkpoint is left: readers then list the whole log). */
  def delete(table: TablePath): Unit = {
    val file = new Path(table.logDir, FileNames.LastCheckpoint)
    if (table.fs.exists(file) && !table.fs.delete(file, false)) {
      throw txlog.errors.TxlogErrors.writeFailed(file.toString, "It could not be deleted.")
    }
  }

}
