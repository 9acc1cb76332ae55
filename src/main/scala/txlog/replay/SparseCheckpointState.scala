package txlog.replay

import org.apache.parquet.hadoop.metadata.BlockMetaData

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType

import txlog.config.TxlogConf
import txlog.log.LogSegment

/** The few rows of state of a checkpoint too large to read on the driver whole, read there from the
  * row groups its footers say may hold them ([[sparseNonFileRows]]): a large table's load then runs
  * no job for its protocol and metadata.
  *
  * {{{
  * SparseCheckpointState.sparseNonFileRows(spark, segment).getOrElse(rowsCollectedByAJob)
  * }}}
  */
private[txlog] object SparseCheckpointState {

  /** Checkpoints of more part files than this have their non-file rows read by a job. */
  private val MaxSparseParts = 4

  /** The most rows read on the driver from the row groups that may hold non-file actions. */
  val MaxSparseRows = 10000L

  /** A checkpoint row's non-file actions and its sidecar's path and size, without file actions. */
  private val stateOnly: StructType =
    StructType(
      DriverCheckpoint.stateAndFiles.fields.filterNot(f => f.name == "add" || f.name == "remove")
    )

  /** The non-file rows of `segment`'s parquet checkpoint (as [[NonFileState.checkpointRows]]
    * selects them) read on the driver when it is too large to read here whole but its footers
    * confine those rows to row groups of at most [[MaxSparseRows]] rows in all: a row group whose
    * statistics count every one of the leaves Spark's job would test as null is skipped, as that
    * job's parquet reader skips it. The job's fixed cost is then saved on a large table (its
    * checkpoint's protocol and metadata usually sit in a row group of their own, or in a few rows
    * of the first). None otherwise, or when a file does not read here (the job then reads it and
    * raises the error a user sees), or when [[DriverCheckpoint.MaxBytesConf]] is 0 (no checkpoint
    * read on the driver); a storage failure is LOG_READ_FAILED naming the file.
    */
  def sparseNonFileRows(spark: SparkSession, segment: LogSegment): Option[Seq[Row]] =
    segment.checkpoint
      .filter(cp => !cp.isJson && cp.files.size <= MaxSparseParts)
      .filter(_ => TxlogConf.ReplayMaxDriverCheckpointBytes.get(spark).forall(_ > 0))
      .flatMap { cp =>
        val table = segment.table
        var reading = cp.files.head.file.path
        // each file's footer is read once: its row groups are chosen as it is opened
        var rowsChosen = 0L
        def choose(blocks: Seq[BlockMetaData]): BlockMetaData => Boolean = {
          val wanted = blocks.filterNot(DriverCheckpoint.holdsNoState)
          rowsChosen += wanted.map(_.getRowCount).sum
          if (rowsChosen > MaxSparseRows) throw OverBudget
          wanted.toSet
        }
        DriverCheckpoint
          .attempt(spark, reading, cp, "the state of ") {
            val rows = Seq.newBuilder[Row]
            try {
              cp.files.foreach { f =>
                reading = f.file.path
                DriverParquet.foreach(table, f.file.path, stateOnly, Some(f.file), Some(choose)) {
                  r =>
                    NonFileState
                      .checkpointRow(cp.version, cp.files.head.file.path, r)
                      .foreach(rows += _)
                }
              }
              Some(rows.result())
            } catch { case OverBudget => None }
          }
          .flatten
      }

  /** More rows than [[MaxSparseRows]] may hold state: a job reads them. */
  private object OverBudget extends RuntimeException with scala.util.control.NoStackTrace
}
