package txlog.scan

import java.net.URI

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.catalyst.expressions.{Expression, SubqueryExpression}
import org.apache.spark.sql.execution.datasources.{FileStatusWithMetadata, PartitionDirectory}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.StructType

import org.apache.spark.sql.Column
import org.apache.spark.sql.txlog.SparkExpressions

import txlog.{Metadata, Snapshot, TxlogErrors}
import txlog.deletionvectors.DvDescriptor
import txlog.protocol.FileColumns
import txlog.util.Jobs

/** The files a scan of a snapshot reads: the live files whose partition values pass the partition
  * filters and whose statistics do not rule out the data filters, selected by a Spark job over the
  * snapshot's distributed file state. Only the selected files reach the driver, as Spark's file
  * scan needs them there: one entry per selected file (path, size, modification time, partition
  * values, deletion vector descriptor).
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
      table: ScanTable,
      partitionFilters: Seq[Expression],
      dataFilters: Seq[Expression]
  ): Selection = {
    val md = snapshot.metadata
    val usable = dataFilters.filterNot(SubqueryExpression.hasSubquery)
    val base = snapshot.reconciledFiles.where(col("add").isNotNull)
    val typed = base.select(
      col("add.path").as("path"),
      col("add.size").as("size"),
      col("add.modificationTime").as("modificationTime"),
      col("add.deletionVector").as("dv"),
      FileColumns.partitionValuesParsed(col("add.partitionValues"), md).as("pv"),
      unparsed(md).as("unparsed"),
      (if (usable.isEmpty) lit(null) else FileColumns.statsParsed(col("add.stats"), md))
        .as("stats")
    )
    // a file whose partition value does not parse is kept, to be refused below, never pruned
    val pruned =
      if (partitionFilters.isEmpty) typed
      else
        typed.where(PartitionPruning.condition(partitionFilters, "pv") || col("unparsed").isNotNull)
    val skipped =
      if (usable.isEmpty) pruned
      else pruned.where(table.skipping.condition(usable, col("stats")))
    val rows = Jobs.named(
      snapshot.spark,
      s"select files to read from ${snapshot.tablePath} " +
        s"v${snapshot.version}"
    ) {
      skipped.select("path", "size", "modificationTime", "dv", "pv", "unparsed").collect()
    }
    rows.find(!_.isNullAt(5)).foreach { r =>
      val bad = r.getStruct(5)
      throw TxlogErrors.partitionValueInvalid(
        snapshot.tablePath,
        snapshot.version,
        r.getString(0),
        bad.getString(0),
        bad.getString(1),
        bad.getString(2)
      )
    }
    directories(snapshot.tablePath, table.partitionSchema, rows)
  }

  /** The first partition column whose value is neither null, empty (null) nor of its type, as
    * (column, value, type); null when every value parses.
    */
  private def unparsed(md: Metadata): Column = {
    val checks = FileColumns.partitionFields(md).map { f =>
      val raw = col("add.partitionValues")(FileColumns.physicalName(f))
      val parsed = SparkExpressions.tryCast(raw, f.dataType)
      when(
        raw.isNotNull && raw =!= lit("") && parsed.isNull,
        struct(lit(f.name).as("column"), raw.as("value"), lit(f.dataType.simpleString).as("type"))
      )
    }
    if (checks.isEmpty) lit(null).cast("struct<column:string,value:string,type:string>")
    else coalesce(checks: _*)
  }

  private def directories(root: String, partitionSchema: StructType, rows: Array[Row]) = {
    val toCatalyst = CatalystTypeConverters.createToCatalystConverter(partitionSchema)
    val empty = InternalRow.empty
    var bytes = 0L
    var dvs = 0L
    val byPartition = rows.groupBy(r => Option(r.getStruct(4))).toSeq.map { case (pv, files) =>
      val values = pv.fold(empty)(v => toCatalyst(v).asInstanceOf[InternalRow])
      val statuses = files.map { r =>
        val size = r.getLong(1)
        bytes += size
        val status = new FileStatus(size, false, 0, 0, r.getLong(2), absolute(root, r.getString(0)))
        val meta: Map[String, Any] = Option(r.getStruct(3)).map(DvDescriptor.fromRow) match {
          case Some(dv) => dvs += 1; Map(DvKey -> dv)
          case None     => Map.empty
        }
        FileStatusWithMetadata(status, meta)
      }
      PartitionDirectory(values, statuses.toSeq)
    }
    Selection(byPartition, rows.length.toLong, bytes, dvs)
  }

  /** A path from an add action made absolute ("Path" of add actions: a URI, relative to the table
    * root unless absolute).
    */
  def absolute(root: String, raw: String): Path = {
    val p = new Path(new URI(raw))
    if (p.isAbsolute) p else new Path(new Path(root), p)
  }
}
