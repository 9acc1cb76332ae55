package txlog.compaction

import java.util.UUID

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.{col, trim}

import txlog.errors.TxlogErrors
import txlog.checkpoint.CheckpointStaging
import txlog.log.{LogWrites, TablePath}
import txlog.util.Jobs

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
      val order = CompactionActions.schema.fieldNames.toSeq.map(col)
      val sorted = lines.repartition(1).sortWithinPartitions(order: _*)
      val parts = CheckpointStaging
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
      if (!published && !sameLines(table, lines, target)) {
        throw TxlogErrors.logFileExists(target.toString)
      }
      published
    } finally LogWrites.deleteQuietly(fs, staging)
  }

  /** Whether the existing `file` holds the same set of non-blank lines as `lines`, decided by a
    * Spark job (two sort-merge anti-joins, each stopping at the first difference): neither side is
    * collected or broadcast, so the driver holds nothing that grows with the range.
    */
  private def sameLines(table: TablePath, lines: DataFrame, file: Path): Boolean = {
    val spark = lines.sparkSession
    val mine = lines.select("line")
    val theirs = spark.read
      .options(table.readOptions)
      .text(file.toString)
      .select(col("value").as("line"))
      .where(trim(col("line")) =!= "")
    // Sort-merge joins: a broadcast join would collect one side to the driver.
    Jobs.named(spark, s"compare the existing $file") {
      mine.join(theirs.hint("merge"), Seq("line"), "left_anti").isEmpty &&
      theirs.join(mine.hint("merge"), Seq("line"), "left_anti").isEmpty
    }
  }
}
