package txlog.changes

import java.time.Instant

import org.apache.hadoop.fs.FileStatus
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.execution.datasources.{
  FileStatusWithMetadata,
  HadoopFsRelation,
  PartitionDirectory
}
import org.apache.spark.sql.types.{LongType, StringType, StructType, TimestampType}

import txlog.scan.{ScanFiles, ReadSpec, TableParquetFormat}
import txlog.util.FixedFileIndex

/** The change data feed of a range as a Spark relation: Spark's file source over the range's change
  * files ([[txlog.util.FixedFileIndex]]) read by txlog's table reader ([[TableParquetFormat]] in
  * its change mode: column mapping, deletion vectors, `_change_type` from `cdc` files or the file's
  * constant). The schema: the table's columns (of the end version) then `_change_type` string,
  * `_commit_version` long and `_commit_timestamp` timestamp, as delta-spark's.
  *
  * {{{
  * val df = ChangeScan.dataFrame(spark, ReadSpec(endSnapshot), files, "versions 2 to 5")
  * }}}
  */
private[txlog] object ChangeScan {

  val ChangeType: String = TableParquetFormat.ChangeTypeColumn
  val CommitVersion = "_commit_version"
  val CommitTimestamp = "_commit_timestamp"

  def relation(
      spark: SparkSession,
      endTable: ReadSpec,
      files: Seq[ChangeFile],
      label: String
  ): HadoopFsRelation = {
    val table = endTable.copy(
      deletionVectors =
        endTable.deletionVectors || files.exists(f => f.exclude.isDefined || f.keep.isDefined)
    )
    HadoopFsRelation(
      location = new FixedFileIndex(
        Seq(table.root),
        label,
        partitionSchema(table),
        directories(table, files),
        files.map(_.size).sum
      ),
      partitionSchema = partitionSchema(table),
      dataSchema = dataSchema(table),
      bucketSpec = None,
      fileFormat = new TableParquetFormat(table, changes = true),
      options = Map.empty
    )(spark)
  }

  /** The change files `files` as directories of Spark's file source: one per partition value,
    * commit version and commit timestamp (the relation's partition-like values).
    */
  def directories(table: ReadSpec, files: Seq[ChangeFile]): Seq[PartitionDirectory] = {
    val toCatalyst = CatalystTypeConverters.createToCatalystConverter(partitionSchema(table))
    val parts = table.partitionSchema.length
    files.groupBy(f => (f.partitionValues, f.version, f.timestamp)).toSeq.map {
      case ((pv, version, ts), group) =>
        val values = (0 until parts).map(i => pv.get(i)) ++ Seq(version, Instant.ofEpochMilli(ts))
        val row = toCatalyst(Row.fromSeq(values)).asInstanceOf[InternalRow]
        PartitionDirectory(row, group.map(status))
    }
  }

  /** The change data feed's schema for `table`: its columns then the three change columns. */
  def schema(table: ReadSpec): StructType =
    table.dataSchema
      .add(ChangeType, StringType)
      .add(CommitVersion, LongType)
      .add(
        CommitTimestamp,
        TimestampType
      )

  /** The columns read from the files: the table's, then `_change_type`. */
  def dataSchema(table: ReadSpec): StructType = table.dataSchema.add(ChangeType, StringType)

  /** The partition-like values of [[directories]]: the partition columns, the commit's version and
    * timestamp.
    */
  def partitionSchema(table: ReadSpec): StructType =
    table.partitionSchema.add(CommitVersion, LongType).add(CommitTimestamp, TimestampType)

  def dataFrame(
      spark: SparkSession,
      endTable: ReadSpec,
      files: Seq[ChangeFile],
      label: String
  ): DataFrame = spark.baseRelationToDataFrame(relation(spark, endTable, files, label))

  private def status(f: ChangeFile): FileStatusWithMetadata = {
    val s =
      new FileStatus(f.size, false, 0, 0, f.modificationTime, new org.apache.hadoop.fs.Path(f.path))
    val meta: Map[String, Any] =
      f.changeType.map(ScanFiles.ChangeTypeKey -> _).toMap ++
        f.exclude.map(ScanFiles.DvKey -> _) ++ f.keep.map(ScanFiles.DvKeepKey -> _)
    FileStatusWithMetadata(s, meta)
  }
}
