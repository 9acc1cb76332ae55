package txlog.scan

import org.apache.hadoop.fs.FileStatus
import org.apache.spark.sql.{Column, DataFrame, Row}
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.catalyst.expressions.{Expression, SubqueryExpression}
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.execution.datasources.{
  FileStatusWithMetadata,
  PartitionDirectory,
  PartitionedFile
}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.StructType

import txlog.util.PartitionPruning
import txlog.{Metadata, Snapshot}
import txlog.errors.TxlogErrors
import txlog.deletionvectors.DvDescriptor
import txlog.protocol.FileColumns
import txlog.replay.FileKeys
import txlog.util.Jobs

/** The files a scan of a snapshot reads: the live files whose partition values pass the partition
  * filters and whose statistics do not rule out the data filters, selected by a Spark job over the
  * snapshot's distributed file state. Only the selected files reach the driver, as Spark's file
  * scan needs them there: one entry per selected file (path, size, modification time, partition
  * values, deletion vector descriptor, and with row tracking enabled the file's baseRowId and
  * defaultRowCommitVersion).
  *
  * {{{
  * val dirs = ScanFiles.select(snapshot, table, partitionFilters, dataFilters)
  * }}}
  */
private[txlog] object ScanFiles {

  /** The key under which a file's deletion vector travels to the reader, in the file's metadata
    * (Spark passes it on as the split's `otherConstantMetadataColumnValues`).
    */
  val DvKey = "txlog_deletion_vector"

  /** The key of a deletion vector whose rows alone are read (the change data feed's rows that a new
    * deletion vector deletes); rows in the [[DvKey]] one are still left out.
    */
  val DvKeepKey = "txlog_deletion_vector_keep"

  /** The key of a file's path as its add action gives it (row-level operations name files by it,
    * [[TableParquetFormat.rowLevelFields]]).
    */
  val PathKey = "txlog_path"

  /** The key of a file's `_change_type` when the file has no such column (change data feed). */
  val ChangeTypeKey = "txlog_change_type"

  /** What one scan selected, for the plan's description and for tests. */
  final case class Selection(
      directories: Seq[PartitionDirectory],
      files: Long,
      bytes: Long,
      withDeletionVectors: Long
  )

  def select(
      snapshot: Snapshot,
      table: ReadSpec,
      partitionFilters: Seq[Expression],
      dataFilters: Seq[Expression],
      only: Option[DataFrame] = None
  ): Selection = {
    val md = snapshot.metadata
    val usable = dataFilters.filterNot(SubqueryExpression.hasSubquery)
    // only the statistics the filters can use are parsed: the JSON parser skips the others
    val statsColumns = table.skipping.columns(usable)
    val (files, stats) =
      if (statsColumns.isEmpty) (snapshot.reconciledFiles, lit(null))
      else ScanStats.plan(snapshot, statsColumns)
    val live = files.where(col("add.path").isNotNull)
    // a scan of some of the files (OPTIMIZE's): those `only` names, by path
    val chosen = only.fold(live)(o => live.join(o, live("add.path") === o("path"), "left_semi"))
    val typed =
      chosen.select(
        fileColumns(col("add"), md, table.rowTracking.isDefined) :+ stats.as("stats"): _*
      )
    // a file whose partition value does not parse is kept, to be refused below, never pruned
    val pruned =
      if (partitionFilters.isEmpty) typed
      else
        typed.where(PartitionPruning.condition(partitionFilters, "pv") || col("unparsed").isNotNull)
    val skipped =
      if (statsColumns.isEmpty) pruned
      else pruned.where(table.skipping.condition(usable, col("stats")))
    val rows = Jobs.named(
      snapshot.spark,
      s"select files to read from ${snapshot.tablePath} " +
        s"v${snapshot.version}"
    ) {
      skipped
        .select(
          "path",
          "size",
          "modificationTime",
          "dv",
          "pv",
          "unparsed",
          "baseRowId",
          "defaultRowCommitVersion"
        )
        .collect()
    }
    refuseUnparsed(snapshot.tablePath, snapshot.version, rows.toSeq, 0, 5)
    directories(snapshot.tablePath, table.partitionSchema, rows)
  }

  /** The columns of a file to read, from its add action `add` (a struct column) under `md`, in the
    * layout [[directories]] reads: path, size, modificationTime, dv (the deletion vector), pv
    * (typed partition values), unparsed (a partition value that does not parse), baseRowId and
    * defaultRowCommitVersion (null unless `rowTracking`).
    */
  def fileColumns(add: Column, md: Metadata, rowTracking: Boolean): Seq[Column] = {
    def tracking(field: String) =
      (if (rowTracking) add.getField(field) else lit(null).cast("long")).as(field)
    Seq(
      add.getField("path").as("path"),
      add.getField("size").as("size"),
      add.getField("modificationTime").as("modificationTime"),
      add.getField("deletionVector").as("dv"),
      FileColumns.partitionValuesParsed(add.getField("partitionValues"), md).as("pv"),
      FileColumns.unparsedPartitionValue(add.getField("partitionValues"), md).as("unparsed"),
      tracking("baseRowId"),
      tracking("defaultRowCommitVersion")
    )
  }

  /** MALFORMED_LOG_FILE for the first of `rows` whose partition value does not parse (its
    * [[FileColumns.unparsedPartitionValue]] at `unparsedAt`), naming its data file (at `pathAt`).
    */
  def refuseUnparsed(
      table: String,
      version: Long,
      rows: Seq[Row],
      pathAt: Int,
      unparsedAt: Int
  ): Unit =
    rows.find(!_.isNullAt(unparsedAt)).foreach { r =>
      val bad = r.getStruct(unparsedAt)
      throw TxlogErrors.partitionValueInvalid(
        table,
        version,
        r.getString(pathAt),
        bad.getString(0),
        bad.getString(1),
        bad.getString(2)
      )
    }

  private[txlog] def directories(
      root: String,
      partitionSchema: StructType,
      rows: Array[Row]
  ): Selection = {
    val toCatalyst = CatalystTypeConverters.createToCatalystConverter(partitionSchema)
    val empty = InternalRow.empty
    var bytes = 0L
    var dvs = 0L
    val byPartition = rows.groupBy(r => Option(r.getStruct(4))).toSeq.map { case (pv, files) =>
      val values = pv.fold(empty)(v => toCatalyst(v).asInstanceOf[InternalRow])
      val statuses = files.map { r =>
        val size = r.getLong(1)
        bytes += size
        val path = FileKeys.canonicalPath(root, r.getString(0))
        val status = new FileStatus(size, false, 0, 0, r.getLong(2), path)
        val meta: Map[String, Any] = Option(r.getStruct(3)).map(DvDescriptor.fromRow) match {
          case Some(dv) => dvs += 1; Map(DvKey -> dv)
          case None     => Map.empty
        }
        val rowTracking = Seq(
          RowTrackingRead.BaseRowIdKey -> 6,
          RowTrackingRead.DefaultRowCommitVersionKey -> 7
        ).collect { case (key, i) if !r.isNullAt(i) => key -> r.getLong(i) }
        FileStatusWithMetadata(status, meta ++ rowTracking + (PathKey -> r.getString(0)))
      }
      PartitionDirectory(values, statuses.toSeq)
    }
    Selection(byPartition, rows.length.toLong, bytes, dvs)
  }

  /** `f`, a file of the partition `values`, as the split Spark's file readers take: the whole file,
    * `metadata` its constant metadata values (where [[DvKey]] and the other keys travel).
    *
    * {{{
    * ScanFiles.split(directory.values, directory.files.head, directory.files.head.metadata)
    * }}}
    */
  def split(
      values: InternalRow,
      f: FileStatusWithMetadata,
      metadata: Map[String, Any]
  ): PartitionedFile =
    PartitionedFile(
      values,
      SparkPath.fromPath(f.getPath),
      0L,
      f.getLen,
      Array.empty[String],
      f.getModificationTime,
      f.getLen,
      metadata
    )
}
