package txlog.restore

import java.io.FileNotFoundException

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, Dataset, SparkSession}

import txlog.errors.TxlogErrors
import txlog.replay.FileKeys
import txlog.util.SerializableConf

/** The data files a restore would add back that are no longer on storage (deleted by hand or by
  * VACUUM), found by tasks (one existence check per file, in the partitions the diff has). The
  * driver receives at most [[Examples]] paths and a count.
  */
private[txlog] object MissingFiles {

  /** Missing files named in the error. */
  val Examples = 10

  /** The files of `toAdd` (a DataFrame with a `path` column) missing from storage. */
  def of(
      spark: SparkSession,
      root: String,
      conf: SerializableConf,
      toAdd: DataFrame
  ): Dataset[String] = {
    import spark.implicits._
    toAdd
      .select("path")
      .as[String]
      .mapPartitions { paths =>
        lazy val fs = new Path(root).getFileSystem(conf.value)
        paths.filter { p =>
          val abs = new Path(FileKeys.canonicalize(root, p))
          try !fs.exists(abs)
          catch {
            case _: FileNotFoundException => true
            case e: java.io.IOException =>
              throw TxlogErrors.logReadFailed(
                abs.toString,
                None,
                s"Checking that the data file exists failed: $e",
                e
              )
          }
        }
      }
  }

  /** RESTORE_MISSING_FILES, naming up to [[Examples]] of them, when `missing` is not empty. */
  def check(root: String, version: Long, missing: Dataset[String]): Unit = {
    val first = missing.take(Examples).toSeq
    if (first.nonEmpty) {
      val n = if (first.size < Examples) first.size.toLong else missing.count()
      throw TxlogErrors.restoreMissingFiles(root, version, first.sorted, n)
    }
  }
}
