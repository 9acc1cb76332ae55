package txlog.scan

import org.apache.hadoop.fs.Path
import org.apache.spark.internal.Logging
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.datasources.{FileIndex, PartitionDirectory}
import org.apache.spark.sql.types.StructType

import txlog.util.PartitionPruning
import txlog.Snapshot

/** Spark's view of one snapshot's files: every scan asks [[ScanFiles]] for the files its partition
  * and data filters leave, so Spark's file scan (column pruning, filters pushed into parquet,
  * vectorized reads, its "number of files read" metric) reads those and no others.
  *
  * {{{
  * val index = new SnapshotFileIndex(snapshot, ReadSpec(snapshot))
  * }}}
  */
private[txlog] final class SnapshotFileIndex(
    val snapshot: Snapshot,
    table: ReadSpec,
    private val only: Option[DataFrame] = None
) extends FileIndex
    with Logging {

  override def rootPaths: Seq[Path] = Seq(new Path(snapshot.tablePath))

  override def partitionSchema: StructType = table.partitionSchema

  override def listFiles(
      partitionFilters: Seq[Expression],
      dataFilters: Seq[Expression]
  ): Seq[PartitionDirectory] = {
    // a subquery's result, not its plan, decides the selection
    def keyOf(fs: Seq[Expression]) = fs.map(PartitionPruning.withSubqueryResults(_).canonicalized)
    val key = (keyOf(partitionFilters), keyOf(dataFilters))
    last match {
      case Some((k, dirs)) if k == key => dirs
      case _ =>
        val selected = ScanFiles.select(snapshot, table, partitionFilters, dataFilters, only)
        selections.incrementAndGet()
        logInfo(
          s"txlog scan of ${snapshot.tablePath} v${snapshot.version}: ${selected.files} files " +
            s"(${selected.bytes} bytes, ${selected.withDeletionVectors} with deletion vectors) " +
            s"selected by partition filters [${partitionFilters.mkString(", ")}] and data " +
            s"filters [${dataFilters.mkString(", ")}]"
        )
        last = Some((key, selected.directories))
        selected.directories
    }
  }

  /** How many times files were selected (for tests: a selection reused is not counted). */
  private[txlog] val selections = new java.util.concurrent.atomic.AtomicLong

  /** The last selection and the filters it was made for: a DataFrame run again (a count, then a
    * show) reads the same files, and the snapshot cannot change, so its files are not selected
    * again. One selection is kept (the files of one scan; Spark holds them anyway while planning).
    */
  @volatile private var last
      : Option[((Seq[Expression], Seq[Expression]), Seq[PartitionDirectory])] =
    None

  /** Every live file's path; Spark asks for it in `DataFrame.inputFiles`. */
  override def inputFiles: Array[String] =
    listFiles(Nil, Nil).flatMap(_.files.map(_.getPath.toString)).toArray

  /** A snapshot does not change: nothing to refresh (read a new snapshot for new versions). */
  override def refresh(): Unit = ()

  override def sizeInBytes: Long = snapshot.sizeInBytes

  override def equals(other: Any): Boolean = other match {
    // an index of some of the files equals only itself
    case o: SnapshotFileIndex if only.nonEmpty || o.only.nonEmpty => o eq this
    case o: SnapshotFileIndex =>
      o.snapshot.tablePath == snapshot.tablePath && o.snapshot.version == snapshot.version
    case _ => false
  }

  override def hashCode: Int = (snapshot.tablePath, snapshot.version).hashCode

  override def toString: String = s"SnapshotFileIndex(${snapshot.tablePath}, v${snapshot.version})"
}
