package txlog.compaction

import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID

import scala.io.Source

import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.col

import txlog.TxlogErrors
import txlog.checkpoint.StagedFiles
import txlog.log.{LogWrites, TablePath}

/** Writes the lines of a log compaction with Spark (executors write the text) into a hidden staging
  * directory inside `_delta_log`, then publishes the one file it holds with a single put-if-absent
  * rename, so readers see the whole compaction or none of it.
  */
private[txlog] object CompactionWriter {

  /** Publishes `lines` (see [[CompactionActions.schema]]) as `target`. When `target` exists with
    * the same lines this is a no-op (false); with other content, LOG_FILE_EXISTS.
    */
  def write(table: TablePath, lines: DataFrame, target: Path): Boolean = {
    val fs = table.fs
    val staging = new Path(target.getParent, s".${target.getName}.${UUID.randomUUID()}.staging")
    try {
      // One output file, sorted so that the same range always gives the same bytes.
      val sorted = lines.repartition(1).sortWithinPartitions(col("rank"), col("line"))
      val parts = StagedFiles
        .write(table, sorted.select("line"), staging, "text")
        .map(_.status.getPath)
        .toArray
      val published = parts match {
        case Array(part) => LogWrites.publish(fs, part, target, overwrite = false)
        case Array()     => LogWrites.putIfAbsent(fs, target, Array.emptyByteArray)
        case _ =>
          throw TxlogErrors.writeFailed(
            target.toString,
            s"the staging directory $staging holds ${parts.length} files, expected one"
          )
      }
      if (!published) {
        val mine = lines.select("line").collect().map(_.getString(0)).toSet
        if (readLines(fs, target) != mine) throw TxlogErrors.logFileExists(target.toString)
      }
      published
    } finally LogWrites.deleteQuietly(fs, staging)
  }

  private def readLines(fs: FileSystem, file: Path): Set[String] = {
    val src = Source.fromInputStream(fs.open(file), UTF_8.name())
    try src.getLines().filter(_.trim.nonEmpty).toSet
    finally src.close()
  }
}
