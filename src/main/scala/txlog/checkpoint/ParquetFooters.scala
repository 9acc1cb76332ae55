package txlog.checkpoint

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.parquet.column.statistics.Statistics
import org.apache.parquet.hadoop.metadata.{BlockMetaData, ColumnChunkMetaData}

import txlog.log.TablePath
import txlog.replay.DriverParquet

/** The action counts of written checkpoint parquet files, taken from their footers: the writer
  * records, per row group and column, how many values it wrote and how many were null, so the
  * number of actions of a kind is the number of non-null values of a field that is never null in
  * that action (`add.path`, `metaData.id`, ...). Reading a footer costs a few kilobytes, not a
  * scan.
  */
private[txlog] object ParquetFooters {

  /** The leaf per action kind, in [[ActionCounts]]' field order: never null in its action. */
  val Leaves: Seq[String] = Seq(
    "add.path",
    "remove.path",
    "metaData.id",
    "protocol.minReaderVersion",
    "txn.appId",
    "domainMetadata.domain",
    "checkpointMetadata.version",
    "sidecar.path"
  )

  /** The files' action counts, or None when the footers cannot prove them: a column chunk without a
    * null count, or counts that do not add up to one action per row.
    */
  def counts(table: TablePath, files: Seq[Path]): Option[ActionCounts] = {
    val perFile = files.map(f => fileCounts(table, f))
    if (perFile.exists(_.isEmpty)) return None
    val (rows, counts) = perFile.flatten.foldLeft((0L, Seq.fill(Leaves.size)(0L))) {
      case ((r, acc), (fr, fc)) => (r + fr, acc.zip(fc).map { case (a, b) => a + b })
    }
    if (counts.sum != rows) None
    else {
      val c = counts
      Some(ActionCounts(c(0), c(1), c(2), c(3), c(4), c(5), c(6), c(7)))
    }
  }

  /** Rows, and non-null values per leaf (0 for a leaf the file lacks); None when unprovable. */
  private def fileCounts(table: TablePath, file: Path): Option[(Long, Seq[Long])] = {
    val reader = DriverParquet.open(table, file)
    try {
      val blocks = reader.getFooter.getBlocks.asScala.toSeq
      val rows = blocks.map(_.getRowCount).sum
      val perLeaf = Leaves.map { leaf =>
        val present = blocks.exists(_.getColumns.asScala.exists(_.getPath.toDotString == leaf))
        if (!present) Some(0L) else nonNullCount(blocks, leaf)
      }
      if (perLeaf.exists(_.isEmpty)) None else Some((rows, perLeaf.flatten))
    } finally reader.close()
  }

  /** Non-null values of `leaf` (a dotted path) over `blocks`; None when some block lacks the column
    * or its null count.
    */
  def nonNullCount(blocks: Seq[BlockMetaData], leaf: String): Option[Long] = {
    val chunks = blocks.flatMap(_.getColumns.asScala.find(_.getPath.toDotString == leaf))
    if (chunks.size != blocks.size) None
    else {
      val values = chunks.map(nonNull)
      if (values.exists(_.isEmpty)) None else Some(values.flatten.sum)
    }
  }

  /** Non-null values in a column chunk, if its statistics record the nulls. */
  private def nonNull(c: ColumnChunkMetaData): Option[Long] =
    if (c.getValueCount == 0) Some(0L)
    else {
      val s: Statistics[_] = c.getStatistics
      if (s != null && s.isNumNullsSet && s.getNumNulls >= 0) Some(c.getValueCount - s.getNumNulls)
      else None
    }
}
