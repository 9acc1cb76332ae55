package txlog.inspect

import java.io.FileNotFoundException

import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.spark.sql.{Column, DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions.col

import txlog.Snapshot
import txlog.replay.FileKeys
import txlog.util.SerializableConf
import txlog.protocol.DvPaths

/** The data and deletion-vector files the latest snapshot references exist, with the sizes the log
  * says. A Spark job over the snapshot's file list: tasks ask the Hadoop FileSystem about each
  * file; the list never reaches the driver.
  */
private[txlog] object FileRules {

  /** The columns of a live file [[check]] reads, in its order. */
  val Checked: Seq[Column] = Seq(
    col("path"),
    col("size"),
    col("deletionVector.storageType"),
    col("deletionVector.pathOrInlineDv"),
    col("deletionVector.offset"),
    col("deletionVector.sizeInBytes")
  )

  def findings(spark: SparkSession, snapshot: Snapshot): DataFrame = {
    val root = snapshot.tablePath
    val version = snapshot.version
    val conf = new SerializableConf(snapshot.segment.table.readConf)
    val files = snapshot.allFiles.select(Checked: _*)
    val rows = files.rdd.mapPartitions { it =>
      lazy val fs = new Path(root).getFileSystem(conf.value)
      it.flatMap(r => check(fs, root, version, r).map(_.toRow))
    }
    rows.setName(s"txlog: check files of $root v$version")
    spark.createDataFrame(rows, Finding.schema)
  }

  private def length(fs: FileSystem, p: Path): Option[Long] =
    try Some(fs.getFileStatus(p).getLen)
    catch { case _: FileNotFoundException => None }

  /** The findings of one file: `r` holds the [[Checked]] columns. */
  private[txlog] def check(fs: FileSystem, root: String, version: Long, r: Row): Seq[Finding] = {
    val path = r.getString(0)
    val data = new Path(FileKeys.canonicalize(root, path))
    val dataFindings = length(fs, data) match {
      case None =>
        Seq(Finding.error(version, path, Rules.MissingDataFile, s"$data does not exist."))
      case Some(len) if !r.isNullAt(1) && len != r.getLong(1) =>
        Seq(
          Finding.error(
            version,
            path,
            Rules.DataFileSizeMismatch,
            s"The add says ${r.getLong(1)} bytes, the file has $len."
          )
        )
      case _ => Nil
    }
    dataFindings ++ (if (r.isNullAt(2)) Nil else dv(fs, root, version, path, r))
  }

  private def dv(
      fs: FileSystem,
      root: String,
      version: Long,
      path: String,
      r: Row
  ): Seq[Finding] = {
    val file =
      try DvPaths.absolutePath(root, r.getString(2), r.getString(3))
      catch {
        case e @ (_: IllegalArgumentException | _: java.net.URISyntaxException) =>
          return Seq(
            Finding.error(version, path, Rules.MissingDvFile, s"Its DV names no file: $e")
          )
      }
    file.toSeq.flatMap { f =>
      val needed = (if (r.isNullAt(4)) 0L else r.getInt(4).toLong) +
        (if (r.isNullAt(5)) 0L else r.getInt(5).toLong)
      length(fs, f) match {
        case None =>
          Seq(
            Finding.error(
              version,
              f.toString,
              Rules.MissingDvFile,
              s"$f (DV of $path) does not exist."
            )
          )
        case Some(len) if len < needed =>
          Seq(
            Finding.error(
              version,
              f.toString,
              Rules.DvFileTooShort,
              s"The DV of $path ends at byte $needed, the file has $len bytes."
            )
          )
        case _ => Nil
      }
    }
  }
}
