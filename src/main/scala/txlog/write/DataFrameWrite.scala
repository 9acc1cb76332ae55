package txlog.write

import java.util.Locale

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.types._

import txlog.protocol.TableConfiguration
import txlog.{Metadata, Protocol, Transaction, WriteOptions, WriteResult}
import txlog.errors.TxlogErrors
import txlog.protocol.WriterGate
import txlog.scan.PhysicalSchema
import txlog.table.TableContext
import txlog.txn.{ActionRules, TableCreation, WriterRules}

/** A DataFrame written to a table as one commit (`DeltaLog.write`): the table created when absent,
  * else the rows appended, or the table's files replaced (overwrite), or nothing done (`ignore`) /
  * TABLE_ALREADY_EXISTS (`error`). Everything that can be refused is refused before a data file is
  * written: options, the schema, the table's features. `mergeSchema` and `overwriteSchema` evolve
  * the table's schema in the same commit ([[SchemaEvolution]]).
  */
private[txlog] object DataFrameWrite {

  val Modes: Seq[String] = Seq("append", "overwrite", "error", "ignore")

  def write(ctx: TableContext, df: DataFrame, options: WriteOptions): WriteResult =
    write(ctx, df, options, dynamicPartitions = false)

  /** [[write]], with `dynamicPartitions`: an overwrite of a partitioned table replaces the files of
    * the partitions the rows fall in only ([[DynamicPartitions]]); with `replaceWhere` or
    * `overwriteSchema` it is INVALID_ARGUMENT, as in delta-spark. With `streaming` (a micro-batch
    * of the streaming sink, `txlog.streaming.TableSink`) the commit is that batch's
    * ([[StreamingUpdate]]).
    */
  def write(
      ctx: TableContext,
      df: DataFrame,
      options: WriteOptions,
      dynamicPartitions: Boolean,
      streaming: Option[StreamingUpdate] = None
  ): WriteResult = {
    if (df == null) throw TxlogErrors.invalidArgument("df", "is null")
    val mode = Option(options.mode).map(_.trim.toLowerCase(Locale.ROOT)).getOrElse("")
    if (!Modes.contains(mode)) {
      throw TxlogErrors.invalidArgument(
        "mode",
        s"'${options.mode}' is not one of ${Modes.mkString(", ")}"
      )
    }
    (options.txnAppId, options.txnVersion) match {
      case (Some(_), None) | (None, Some(_)) =>
        throw TxlogErrors.invalidArgument(
          "txnAppId",
          "txnAppId and txnVersion are given together or not at all"
        )
      case (_, Some(v)) if v < 0 =>
        throw TxlogErrors.invalidArgument("txnVersion", s"$v is negative")
      case _ => ()
    }
    if (options.replaceWhere.isDefined && mode != "overwrite") {
      throw TxlogErrors.invalidArgument(
        "replaceWhere",
        s"applies to mode 'overwrite' (the write's mode is '$mode')"
      )
    }
    if (options.overwriteSchema && mode != "overwrite") {
      throw TxlogErrors.invalidArgument(
        "overwriteSchema",
        s"applies to mode 'overwrite' (the write's mode is '$mode')"
      )
    }
    if (options.overwriteSchema && options.replaceWhere.isDefined) {
      throw TxlogErrors.invalidArgument(
        "overwriteSchema",
        "cannot be used with replaceWhere: a new schema replaces every file of the table"
      )
    }
    val dynamic = dynamicPartitions && mode == "overwrite"
    if (dynamic && (options.replaceWhere.isDefined || options.overwriteSchema)) {
      throw TxlogErrors.invalidArgument(
        DynamicPartitions.Option,
        "dynamic partition overwrite cannot be used with replaceWhere or overwriteSchema"
      )
    }
    TableSchemaCheck.typed(ctx.root, df.schema)
    val existing = exists(ctx)
    if (!existing) create(ctx, df, options, mode, streaming)
    else
      mode match {
        case "error" =>
          throw TxlogErrors.tableAlreadyExists(
            ctx.root,
            "Write with mode \"append\" or \"overwrite\", or \"ignore\" to leave it as it is."
          )
        case "ignore" =>
          val v = ctx.snapshots.update().version
          WriteResult(mode, v, committed = false, 0, 0, 0, 0, None)
        case _ => into(ctx, df, options, mode, dynamic, streaming)
      }
  }

  private[txlog] def exists(ctx: TableContext): Boolean =
    try { ctx.snapshots.update(); true }
    catch {
      case e: txlog.TxlogException if e.errorClass == txlog.ErrorClasses.DeltaTableNotFound => false
    }

  private def create(
      ctx: TableContext,
      df: DataFrame,
      options: WriteOptions,
      mode: String,
      streaming: Option[StreamingUpdate]
  ): WriteResult = {
    val schema = TableSchemaCheck.nullable(df.schema)
    val (txn, p, md) = TableCreation.prepare(ctx, schema, options.partitionBy, options.properties)
    commitData(ctx, txn, df, p, md, options, mode, replace = false, streaming = streaming)
  }

  private def into(
      ctx: TableContext,
      df: DataFrame,
      options: WriteOptions,
      mode: String,
      dynamic: Boolean,
      streaming: Option[StreamingUpdate]
  ): WriteResult = {
    if (options.properties.nonEmpty) {
      throw TxlogErrors.invalidArgument(
        "properties",
        "table properties are set when a write creates the table; this one exists (change " +
          "them with a transaction's updateMetadata)"
      )
    }
    val txn = Transaction.start(ctx)
    val snap = txn.readSnapshot.get
    val md = snap.metadata
    if (
      !options.overwriteSchema && options.partitionBy.nonEmpty &&
      !sameNames(options.partitionBy, md.partitionColumns)
    ) {
      throw TxlogErrors.schemaMismatch(
        ctx.root,
        s"partitionBy is ${options.partitionBy.mkString("[", ", ", "]")}; the table is " +
          s"partitioned by ${md.partitionColumns.mkString("[", ", ", "]")}."
      )
    }
    // refused before the data job, by the rule the commit applies
    ActionRules.checkAppendOnly(ctx.root, snap.config, mode == "overwrite")
    // what the commit would refuse, refused before the data job writes a file
    WriterRules.checkDataCommit(ctx.root, snap.version, snap.protocol, md, "write data")
    val alreadyDone = for {
      app <- options.txnAppId
      v <- options.txnVersion
      seen <- txn.txnVersion(app)
      if seen >= v
    } yield seen
    if (alreadyDone.isDefined) WriteResult(mode, snap.version, committed = false, 0, 0, 0, 0, None)
    else {
      val t = SchemaEvolution.target(ctx.root, df, md, options)
      if (t.changed(md)) {
        // the commit's writer rules on the new metadata (a feature a new column's type needs
        // that txlog cannot follow, say), before any data file is written
        val current = Some((snap.protocol, md))
        WriterRules.prepare(
          ctx.root,
          snap.version + 1,
          current,
          None,
          Some(t.metadata),
          false,
          t.replacesTable
        )
        txn.updateMetadata(t.metadata)
      }
      if (t.replacesTable) txn.replacingTable()
      val replace = mode == "overwrite"
      val byPartition = dynamic && t.metadata.partitionColumns.nonEmpty
      commitData(
        ctx,
        txn,
        t.data,
        snap.protocol,
        t.metadata,
        options,
        mode,
        replace,
        byPartition,
        streaming
      )
    }
  }

  /** Writes `df`'s files and commits them; with `replace`, removing the files of the version read
    * (those `options.replaceWhere` selects, when given).
    */
  private def commitData(
      ctx: TableContext,
      txn: Transaction,
      df: DataFrame,
      p: Protocol,
      md: Metadata,
      options: WriteOptions,
      mode: String,
      replace: Boolean,
      byPartition: Boolean = false,
      streaming: Option[StreamingUpdate] = None
  ): WriteResult = {
    val version = txn.readVersion
    WriterGate.check(ctx.root, version, p, "write data")
    refuseUnimplemented(ctx.root, p, md)
    val where = options.replaceWhere
    // checked (parsed, partition columns only) before any file is written
    val filesWhere = where.map(PartitionPredicate.onFiles(ctx.spark, "replaceWhere", _, md))
    val extraChecks = where.map(w => RowCheck(s"replaceWhere ($w)", w)).toSeq
    val parts = md.partitionColumns
    parts.foreach { c =>
      val t = md.schema(c).dataType
      if (!PartitionValueText.supported(t)) {
        throw TxlogErrors.schemaMismatch(
          ctx.root,
          s"partition column $c has type ${t.simpleString}; txlog writes partition values of " +
            "strings, numbers, booleans, dates and timestamps"
        )
      }
    }
    val plan = FilePlan.of(ctx.root, p, md, dataChange = true)
    val checks = RowChecks.of(ctx.root, md) ++ extraChecks
    val checked = RowChecks.withChecks(ctx.root, df, checks)
    val written = DataFiles.write(checked, ctx.table, plan, checks.map(_.name))
    txn.addFiles(written.adds)
    // the identity values the rows were given raise their columns' high water marks
    IdentityWrites
      .raised(ctx.root, md, IdentityWrites.trackers(df))
      .foreach(txn.raiseIdentityHighWaterMarks)
    val removed =
      if (!replace) 0L
      else {
        val read = filesWhere.fold(txn.readFiles())(txn.readFiles)
        // dynamic: the whole table is recorded as read, the partitions written replaced
        val old = if (byPartition) DynamicPartitions.replaced(read, written.adds, md) else read
        val whole = filesWhere.isEmpty && !byPartition
        val n = if (whole) txn.readSnapshot.fold(0L)(_.numFiles) else old.count()
        txn.removeFiles(FilePlan.removes(old, dataChange = true))
        n
      }
    for (app <- options.txnAppId; v <- options.txnVersion) txn.setAppTransaction(app, v)
    val modeName = mode match {
      case "overwrite" => "Overwrite"
      case "append"    => "Append"
      case "error"     => "ErrorIfExists"
      case _           => "Ignore"
    }
    val output = Map(
      "numOutputRows" -> written.rows.toString,
      "numOutputBytes" -> written.bytes.toString
    )
    val r = streaming match {
      case Some(s) =>
        txn.commit(
          StreamingUpdate.Operation,
          s.parameters,
          output ++ Map(
            "numAddedFiles" -> written.numFiles.toString,
            "numRemovedFiles" -> removed.toString
          )
        )
      case None =>
        txn.commit(
          "WRITE",
          Map("mode" -> modeName, "partitionBy" -> txlog.util.JsonText.array(parts)) ++
            where.map(w => "predicate" -> txlog.util.JsonText.array(Seq(w))),
          output + ("numFiles" -> written.numFiles.toString)
        )
    }
    WriteResult(
      mode,
      r.version,
      r.committed,
      written.numFiles,
      written.rows,
      written.bytes,
      removed,
      Some(r)
    )
  }

  /** Table features whose data rules this writer does not implement yet:
    * UNSUPPORTED_WRITER_FEATURES naming them, before anything is written.
    */
  private[write] def refuseUnimplemented(table: String, p: Protocol, md: Metadata): Unit = {
    val mapping = TableConfiguration(p, md).columnMappingMode
    if (mapping != "none" && !PhysicalSchema.maps(mapping)) {
      throw TxlogErrors.unsupportedWriteFeature(table, s"column mapping mode $mapping")
    }
    // identity columns' keys checked (INVALID_METADATA) before anything is written
    txlog.protocol.IdentityColumns.of(table, md.schema)
  }

  private def sameNames(a: Seq[String], b: Seq[String]): Boolean =
    a.size == b.size && a.zip(b).forall { case (x, y) => x.equalsIgnoreCase(y) }
}
