package txlog.sql

import org.apache.spark.sql.connector.distributions.{Distribution, Distributions}
import org.apache.spark.sql.connector.expressions.{
  Expression,
  Expressions,
  SortDirection,
  SortOrder
}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{
  DeltaBatchWrite,
  DeltaWrite,
  DeltaWriteBuilder,
  DeltaWriterFactory,
  LogicalWriteInfo,
  PhysicalWriteInfo,
  RequiresDistributionAndOrdering,
  RowLevelOperation,
  RowLevelOperationBuilder,
  SupportsDelta,
  WriterCommitMessage
}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import txlog.{DeltaLog, Snapshot}
import txlog.deletionvectors.DeletionVectorWriter
import txlog.write.DvDelete

/** SQL `DELETE FROM` with a condition on data columns, as a delta-based row-level operation of
  * Spark's (`SupportsDelta`): Spark scans the table with each row's id ([[RowLevelColumns]]: its
  * file and index in it) and the file's deletion vector, keeps the rows the condition matches, and
  * hands them to [[DvDeleteWriter]]s, clustered by file and sorted by row index. Each task writes
  * the new deletion vectors of its files (the old ones merged in) into one DV file; the driver then
  * commits them as one `DELETE` ([[DvDelete]]): each touched file removed and added back with its
  * new vector, or removed whole when no row of it is left. No data file is read twice or written.
  *
  * A condition on partition columns alone never gets here: Spark deletes by filters first
  * (`TxlogTable.deleteWhere`, whole files). The table is checked before any task runs
  * ([[DvDelete.check]]): without deletion vectors enabled, with the change data feed enabled, or
  * append-only, the statement fails typed and nothing is written.
  *
  * {{{
  * spark.sql("DELETE FROM txlog.db.events WHERE user_id = 42")
  * }}}
  */
private[txlog] final class RowLevelDelete(tableName: String, snapshot: Snapshot)
    extends SupportsDelta {

  @volatile private var scan: Option[SnapshotScanBuilder] = None

  override def command(): RowLevelOperation.Command = RowLevelOperation.Command.DELETE

  override def description(): String = s"txlog DELETE on $tableName v${snapshot.version}"

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    TxlogTable.refuseOptions(options, "a DELETE of a txlog table by name takes no options")
    val b = new SnapshotScanBuilder(snapshot)
    scan = Some(b)
    b
  }

  override def rowId(): Array[org.apache.spark.sql.connector.expressions.NamedReference] =
    RowLevelColumns.rowId

  override def requiredMetadataAttributes()
      : Array[org.apache.spark.sql.connector.expressions.NamedReference] =
    RowLevelColumns.required

  override def representUpdateAsDeleteAndInsert(): Boolean = true

  override def newWriteBuilder(info: LogicalWriteInfo): DeltaWriteBuilder = {
    TxlogTable.refuseOptions(info.options(), "a DELETE of a txlog table by name takes no options")
    new DeltaWriteBuilder {
      override def build(): DeltaWrite =
        new DvDeleteWrite(snapshot, () => scan.fold(Seq.empty[Filter])(_.pushedFilters().toSeq))
    }
  }
}

private[txlog] object RowLevelDelete {

  /** The builder Spark asks a table for. */
  def builder(tableName: String, snapshot: Snapshot): RowLevelOperationBuilder =
    new RowLevelOperationBuilder {
      override def build(): RowLevelOperation = new RowLevelDelete(tableName, snapshot)
    }
}

/** The write of a DELETE: the deleted rows clustered by file (so one task writes each file's
  * vector) and sorted by row index; committed by the driver as one `DELETE`.
  */
private[txlog] final class DvDeleteWrite(snapshot: Snapshot, filters: () => Seq[Filter])
    extends DeltaWrite
    with RequiresDistributionAndOrdering {

  private val file: Expression = Expressions.column(RowLevelColumns.FilePath)
  private val index: Expression = Expressions.column(RowLevelColumns.RowIndex)

  override def description(): String = s"txlog DELETE ${snapshot.tablePath}"

  override def requiredDistribution(): Distribution = Distributions.clustered(Array(file))

  override def requiredOrdering(): Array[SortOrder] = Array(
    Expressions.sort(file, SortDirection.ASCENDING),
    Expressions.sort(index, SortDirection.ASCENDING)
  )

  override def toBatch(): DeltaBatchWrite = {
    val started = System.nanoTime()
    val log = DeltaLog.forTable(snapshot.spark, snapshot.tablePath)
    // before any task writes: a table this delete may not change fails here, typed
    DvDelete.check(log.context, snapshot)
    val target = DeletionVectorWriter.Target(
      snapshot.tablePath,
      snapshot.version,
      snapshot.config,
      log.context.table.hadoopConf
    )
    new DvDeleteBatch(log, snapshot, target, filters, started)
  }
}

/** Commits the tasks' deletion vectors; on a failure before the commit was tried, deletes the DV
  * files the tasks wrote (nothing refers to them). Once tried, they stay: a commit whose outcome is
  * unknown may refer to them, and VACUUM removes those that no version does.
  */
private[txlog] final class DvDeleteBatch(
    log: DeltaLog,
    snapshot: Snapshot,
    target: DeletionVectorWriter.Target,
    filters: () => Seq[Filter],
    started: Long
) extends DeltaBatchWrite {

  @volatile private var commitTried = false

  override def createBatchWriterFactory(info: PhysicalWriteInfo): DeltaWriterFactory =
    new DvDeleteWriterFactory(target)

  override def commit(messages: Array[WriterCommitMessage]): Unit = {
    commitTried = true
    val top = snapshot.metadata.schema.fieldNames.toSet
    val predicate = filters().flatMap(FilterSql.of(_, top))
    DvDelete.commit(log.context, snapshot, DvDeleteMessage.touched(messages), predicate, started)
    ()
  }

  override def abort(messages: Array[WriterCommitMessage]): Unit =
    if (!commitTried) DvDeleteMessage.deleteFiles(target, messages, log.context.table.hadoopConf)
}
