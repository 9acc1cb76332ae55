package txlog.sql

import org.apache.spark.sql.Row
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
import org.apache.spark.sql.types.{LongType, StringType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import txlog.{DeltaLog, Metadata, Snapshot}
import txlog.deletionvectors.DeletionVectorWriter
import txlog.write.{DataFiles, DmlChangeData, DvDelete, FilePlan, RowChecks, RowIdsKept}

/** SQL `DELETE FROM` with a condition on data columns, `UPDATE` and `MERGE INTO`, as a delta-based
  * row-level operation of Spark's (`SupportsDelta`): Spark scans the table with each row's id
  * ([[RowLevelColumns]]: its file and index in it) and the file's deletion vector, keeps the rows
  * the condition matches, and hands them to [[DvRowWriter]]s, clustered by file and sorted by row
  * index (an UPDATE's with their new values; a MERGE's inserted rows, which have no file, go to one
  * task). Each task writes the new deletion vectors of its files (the old ones merged in) into one
  * DV file, and the new rows into new data files with statistics; the driver then commits them as
  * one `DELETE`, `UPDATE` or `MERGE` ([[DvDelete.commitChanges]]): each touched file removed and
  * added back with its new vector, or removed whole when no row of it is left, and the new files
  * added. No data file is rewritten, except on a table without deletion vectors: there the vectors
  * only say which rows to drop, and the commit rewrites every touched file without them
  * (copy-on-write, `txlog.write.CopyOnWrite`). On a table recording the change data feed the
  * changed rows are written as change data files too (`txlog.write.DmlChangeData`).
  *
  * A DELETE condition on partition columns alone never gets here: Spark deletes by filters first
  * (`TxlogTable.deleteWhere`, whole files). The table is checked before any task runs
  * ([[DvDelete.check]]): a table the operation may not change fails typed and nothing is written.
  *
  * {{{
  * spark.sql("DELETE FROM txlog.db.events WHERE user_id = 42")
  * spark.sql("UPDATE txlog.db.events SET status = 'closed' WHERE id = 7")
  * spark.sql("""MERGE INTO txlog.db.events t USING updates s ON t.id = s.id
  *   WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *""")
  * }}}
  *
  * A MERGE with only `WHEN NOT MATCHED` clauses never gets here: Spark plans it as an append of the
  * source's unmatched rows (`TxlogTable`'s write, a `WRITE` commit).
  */
private[txlog] final class RowLevelDv(
    tableName: String,
    snapshot: Snapshot,
    command: RowLevelOperation.Command,
    capture: Option[DmlCapture],
    evolved: Option[Metadata]
) extends SupportsDelta {

  @volatile private var scan: Option[SnapshotScanBuilder] = None

  override def command(): RowLevelOperation.Command = command

  override def description(): String = s"txlog $command on $tableName v${snapshot.version}"

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    TxlogTable.refuseOptions(options, s"a $command of a txlog table by name takes no options")
    val b = new SnapshotScanBuilder(snapshot, evolved.getOrElse(snapshot.metadata).schema)
    scan = Some(b)
    b
  }

  override def rowId(): Array[org.apache.spark.sql.connector.expressions.NamedReference] =
    RowLevelColumns.rowId

  override def requiredMetadataAttributes()
      : Array[org.apache.spark.sql.connector.expressions.NamedReference] =
    RowLevelColumns.required(snapshot.config.rowTracking)

  // an update is one call with the row's id and new values: one DV mark and one row written
  override def representUpdateAsDeleteAndInsert(): Boolean = false

  override def newWriteBuilder(info: LogicalWriteInfo): DeltaWriteBuilder = {
    TxlogTable.refuseOptions(
      info.options(),
      s"a $command of a txlog table by name takes no options"
    )
    new DeltaWriteBuilder {
      override def build(): DeltaWrite = new DvRowWrite(
        snapshot,
        command,
        () => scan.fold(Seq.empty[Filter])(_.pushedFilters().toSeq),
        capture,
        evolved
      )
    }
  }
}

private[txlog] object RowLevelDv {

  /** The builder Spark asks a table for (DELETE, UPDATE or MERGE). */
  def builder(
      tableName: String,
      snapshot: Snapshot,
      command: RowLevelOperation.Command,
      capture: Option[DmlCapture] = None,
      evolved: Option[Metadata] = None
  ): RowLevelOperationBuilder =
    new RowLevelOperationBuilder {
      override def build(): RowLevelOperation =
        new RowLevelDv(tableName, snapshot, command, capture, evolved)
    }
}

/** The write of a DELETE, UPDATE or MERGE: the rows clustered by file (so one task writes each
  * file's vector) and sorted by row index; committed by the driver as one commit. `evolved`: the
  * metadata a MERGE's schema evolution commits, which the new rows are written under.
  */
private[txlog] final class DvRowWrite(
    snapshot: Snapshot,
    command: RowLevelOperation.Command,
    filters: () => Seq[Filter],
    capture: Option[DmlCapture],
    evolved: Option[Metadata] = None
) extends DeltaWrite
    with RequiresDistributionAndOrdering {

  private val file: Expression = Expressions.column(RowLevelColumns.FilePath)
  private val index: Expression = Expressions.column(RowLevelColumns.RowIndex)
  private val writesRows = command != RowLevelOperation.Command.DELETE

  override def description(): String = s"txlog $command ${snapshot.tablePath}"

  override def requiredDistribution(): Distribution = Distributions.clustered(Array(file))

  override def requiredOrdering(): Array[SortOrder] = Array(
    Expressions.sort(file, SortDirection.ASCENDING),
    Expressions.sort(index, SortDirection.ASCENDING)
  )

  override def toBatch(): DeltaBatchWrite = {
    val started = System.nanoTime()
    val log = DeltaLog.forTable(snapshot.spark, snapshot.tablePath)
    val ctx = log.context
    // before any task writes: a table this operation may not change fails here, typed
    DvDelete.check(ctx, snapshot, command.toString)
    val changeData = DmlChangeData.written(snapshot, command.toString)
    val target = DeletionVectorWriter.Target(
      snapshot.tablePath,
      snapshot.version,
      snapshot.config,
      ctx.table.hadoopConf
    )
    val data =
      if (!writesRows) None
      else {
        val md = evolved.getOrElse(snapshot.metadata)
        val plan = FilePlan.of(ctx.root, snapshot.protocol, md, dataChange = true)
        // the table's CHECK constraints, invariants and CHAR / VARCHAR limits, on every new row
        val checks = RowChecks.of(ctx.root, md)
        val bound = RowChecks.bound(snapshot.spark, ctx.root, md.schema, checks)
        // on a table with row tracking: the materialized row id and row commit version columns
        // after the table's (an updated row's old id, null for the commit's version)
        val tracking = RowIdsKept.columns(snapshot)
        val columns = tracking.foldLeft(md.schema)((s, c) => s.add(c, LongType))
        val files = FilePlan.withRowIds(plan, tracking)
        val schema = RowChecks.withCheckColumns(columns, checks)
        val spec =
          DataFiles.TaskSpec(snapshot.spark, schema, ctx.table, files, checks.map(_.name))
        // the new rows again as change data, with their change type after the table's columns
        val changes =
          if (!changeData) None
          else {
            val cdc = FilePlan.changeData(ctx.root, snapshot.protocol, md)
            val columns = md.schema.add(FilePlan.ChangeTypeColumn, StringType)
            Some(DataFiles.TaskSpec(snapshot.spark, columns, ctx.table, cdc, Nil))
          }
        Some(NewRows(spec, bound, changes, tracked = tracking.nonEmpty))
      }
    val notes = changeData && command == RowLevelOperation.Command.MERGE
    new DvRowBatch(
      log,
      snapshot,
      command.toString,
      target,
      data,
      notes,
      filters,
      started,
      capture,
      evolved
    )
  }
}

/** Commits the tasks' deletion vectors (and new files); on a failure before the commit was tried,
  * deletes the DV files the tasks wrote (nothing refers to them). Once tried, they stay: a commit
  * whose outcome is unknown may refer to them, and VACUUM removes those that no version does.
  */
private[txlog] final class DvRowBatch(
    log: DeltaLog,
    snapshot: Snapshot,
    operation: String,
    target: DeletionVectorWriter.Target,
    data: Option[NewRows],
    notes: Boolean,
    filters: () => Seq[Filter],
    started: Long,
    capture: Option[DmlCapture],
    evolved: Option[Metadata]
) extends DeltaBatchWrite {

  @volatile private var commitTried = false

  override def createBatchWriterFactory(info: PhysicalWriteInfo): DeltaWriterFactory =
    new DvRowWriterFactory(target, data, notes)

  override def commit(messages: Array[WriterCommitMessage]): Unit = {
    commitTried = true
    val top = snapshot.metadata.schema.fieldNames.toSet
    val predicate = filters().flatMap(FilterSql.of(_, top))
    val spark = snapshot.spark
    // local relations: the descriptions are worked out on the driver, without a Spark job
    def described(spec: DataFiles.TaskSpec, rows: Seq[Row]) = DataFiles.written(
      spark,
      spec
        .described(spark.createDataFrame(java.util.Arrays.asList(rows: _*), spec.outSchema))
        .collect()
        .toSeq
    )
    val written = data.map(d => described(d.spec, DvRowMessage.written(messages)))
    val changes = data.flatMap(_.changes).map(described(_, DvRowMessage.changes(messages)))
    val touched = DvRowMessage.touched(messages)
    val updated = DvRowMessage.updated(messages)
    capture.foreach(_.beforeCommit())
    DvDelete
      .commitChanges(
        log.context,
        snapshot,
        operation,
        touched,
        written,
        predicate,
        started,
        updated,
        changes,
        evolved
      )
      .foreach(c => capture.foreach(_.set(DmlCapture.Outcome(c.result, c.metrics))))
  }

  override def abort(messages: Array[WriterCommitMessage]): Unit =
    if (!commitTried) DvRowMessage.deleteFiles(target, messages, log.context.table.hadoopConf)
}
