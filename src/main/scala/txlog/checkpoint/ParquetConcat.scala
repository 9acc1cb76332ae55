package txlog.checkpoint

import org.apache.hadoop.fs.Path
import org.apache.parquet.column.ParquetProperties
import org.apache.parquet.crypto.FileEncryptionProperties
import org.apache.parquet.hadoop.ParquetFileWriter
import org.apache.parquet.hadoop.util.HadoopOutputFile

import txlog.log.TablePath
import txlog.replay.DriverParquet

/** Joins parquet files of one schema into a single file by copying their row groups as they are (no
  * decoding), so that a checkpoint that must be one file ("Classic checkpoint", UUID-named without
  * sidecars) can still be encoded by many tasks in parallel. The copy streams: memory stays that of
  * a buffer plus the row groups' metadata.
  */
private[txlog] object ParquetConcat {

  /** Writes the row groups of `parts` (at least one, all of one schema) to the new file `target`,
    * keeping the first part's key-value metadata (Spark's schema), and returns `target`.
    */
  def apply(table: TablePath, parts: Seq[Path], target: Path): Path = {
    require(parts.nonEmpty, "nothing to concatenate")
    val conf = table.readConf
    val first = DriverParquet.open(table, parts.head)
    val meta =
      try first.getFooter.getFileMetaData
      finally first.close()
    val writer = new ParquetFileWriter(
      HadoopOutputFile.fromPath(target, conf),
      meta.getSchema,
      ParquetFileWriter.Mode.CREATE,
      RowGroupSize,
      0,
      ParquetProperties.DEFAULT_COLUMN_INDEX_TRUNCATE_LENGTH,
      ParquetProperties.DEFAULT_STATISTICS_TRUNCATE_LENGTH,
      ParquetProperties.DEFAULT_PAGE_WRITE_CHECKSUM_ENABLED,
      null: FileEncryptionProperties
    )
    writer.start()
    parts.foreach { p =>
      val reader = DriverParquet.open(table, p)
      try reader.appendTo(writer)
      finally reader.close()
    }
    writer.end(meta.getKeyValueMetaData)
    target
  }

  /** Row group size hint for the writer; row groups are copied whole, so it only bounds padding. */
  private val RowGroupSize = 128L * 1024 * 1024
}
