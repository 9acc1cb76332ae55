package txlog.txn

import java.util.UUID
import java.util.concurrent.ThreadLocalRandom

import scala.util.control.NonFatal

import org.apache.spark.sql.{DataFrame, SparkSession}

import txlog.protocol.RowTrackingSpec
import txlog.config.TxlogConf
import txlog.{BuildInfo, CommitResult, Metadata, Protocol, Snapshot}
import txlog.errors.TxlogErrors
import txlog.protocol.{ActionSchemas, TableConfiguration}
import txlog.log.{LogListing, TablePath}
import txlog.protocol.CommitFile
import txlog.table.TableContext
import txlog.protocol.DomainAction

/** Commits staged actions with optimistic concurrency: put-if-absent of the next version; on a lost
  * race, the winning commits are checked for conflicts ([[ConflictChecker]]), the commit is rebased
  * onto the new latest snapshot (writer rules, in-commit timestamp and row ids redone) and tried
  * again, up to `spark.txlog.commit.maxAttempts`.
  */
private[txlog] object Committer {

  /** Parameters of one commit that do not change between attempts. */
  final case class Request(
      operation: String,
      operationParameters: Map[String, String],
      operationMetrics: Map[String, String],
      txnId: String,
      commitTime: Long
  )

  def commit(
      ctx: TableContext,
      readSnapshot: Option[Snapshot],
      read: ReadSet,
      staged: StagedActions,
      operation: String,
      operationParameters: Map[String, String],
      operationMetrics: Map[String, String]
  ): CommitResult = {
    val spark = ctx.spark
    val table = ctx.table
    checkStaged(table, staged)
    val req = Request(
      operation,
      operationParameters,
      operationMetrics,
      UUID.randomUUID().toString,
      ctx.now()
    )
    // Each staged DataFrame evaluated once, here: everything below reads these.
    val inputs = new CommitInputs(spark, table)
    try commitInputs(ctx, readSnapshot, read, staged, req, inputs)
    finally inputs.delete()
  }

  private def commitInputs(
      ctx: TableContext,
      readSnapshot: Option[Snapshot],
      read: ReadSet,
      original: StagedActions,
      req: Request,
      inputs: CommitInputs
  ): CommitResult = {
    val spark = ctx.spark
    val table = ctx.table
    val maxAttempts = TxlogConf.CommitMaxAttempts.get(spark).toInt
    val backoffMaxMs = TxlogConf.CommitMaxRetryWaitMs.get(spark)
    val staged: StagedActions = original.copy(
      removes = original.removes.map(df =>
        inputs("removes", FileActionLines.shaped(df, ActionSchemas.remove))
      ),
      cdc =
        original.cdc.map(df => inputs("cdc files", FileActionLines.shaped(df, FileActionLines.cdc)))
    )
    val adds = original.adds
      .map(FileActionLines.shaped(_, ActionSchemas.add))
      .reduceOption(_ unionByName _)
      .map(inputs("adds", _))
    // `removeMd` names the removes' columns: the committed metadata, but for a restore or a
    // commit replacing the table the one read, under which the removed files were written (the
    // committed one may be partitioned otherwise).
    val readMdForRemoves = staged.restoring || staged.replacesTable
    // Each remove matched to the live file of its path in the snapshot read (its deletion vector
    // taken from there): what the transaction removes is what it read.
    val removes = readSnapshot match {
      case Some(s) =>
        // staged removes (too many to keep on the driver) matched in partitions sized by them
        val width = Some(inputs.stagedBytes).filter(_ > 0).map(CommitShuffleWidth.of(spark, _))
        staged.removes.map(LiveRemoves.matched(_, s.allFiles, table.root, s.version, width))
      case None if staged.removes.nonEmpty =>
        throw TxlogErrors.invalidCommitActions(
          table.root,
          "remove staged by a transaction that creates the table: no file is live yet"
        )
      case None => Nil
    }
    def fixedLines(md: Metadata, removeMd: Metadata): Seq[DataFrame] =
      removes.map(FileActionLines.removes(_, req.commitTime, removeMd)) ++
        staged.cdc.map(FileActionLines.cdcs(_, md))
    val summary = staged.summary(read)
    var base = readSnapshot
    var version = base.fold(0L)(_.version + 1)
    var attempt = 0
    var body: Option[CommitBody] = None
    try {
      while (true) {
        attempt += 1
        if (attempt > maxAttempts) {
          throw TxlogErrors.commitRetriesExhausted(table.root, maxAttempts, version)
        }
        base.foreach { s =>
          if (alreadyCommitted(table, s, staged.txns)) {
            return CommitResult(s.version, committed = false, attempt, None, None, Seq.empty)
          }
        }
        val current = base.map(s => (s.protocol, s.metadata))
        val (p, m) =
          WriterRules.prepare(
            table.root,
            version,
            current,
            staged.protocol,
            staged.metadata,
            staged.restoring,
            staged.replacesTable
          )
        val protocol = p.orElse(current.map(_._1)).get
        val metadata = m.orElse(current.map(_._2)).get
        val config = TableConfiguration(protocol, metadata)
        ActionRules.checkDomains(table.root, protocol, staged.domains.keySet)
        val tracked = protocol.hasWriterFeature("rowTracking")
        if (base.exists(!_.config.rowTracking) && config.rowTracking) {
          // On the latest snapshot: winners of a race may have added files without row ids.
          LiveRowIds.checkEnablement(table.root, base.get, adds.toSeq ++ removes)
        }
        val (assigned, rowDomain) = adds match {
          case Some(a) =>
            // A recommitted file keeps the row ids it has in the snapshot read.
            val own = readSnapshot
              .filter(_ => tracked)
              .fold(a)(s => LiveRowIds.kept(a, s.allFiles, table.root))
            RowTracking.assign(own, protocol, metadata, highWaterMark(base), version)
          case None => (spark.emptyDataFrame, None)
        }
        if (body.isEmpty || rowDomain.isDefined) {
          body.foreach(_.delete(table))
          body = None
          def lines =
            adds
              .map(_ => FileActionLines.adds(assigned, metadata, protocol, staged.restoring))
              .toSeq ++
              fixedLines(metadata, if (readMdForRemoves) current.fold(metadata)(_._2) else metadata)
          // Only adds, on the driver already (a small commit): their lines computed there too.
          val local =
            if (adds.isEmpty || removes.nonEmpty || staged.cdc.nonEmpty) None
            else LocalLines.adds(assigned, metadata, protocol, staged.restoring)
          body = Some(local.fold(CommitBody.build(spark, table, lines)) { rows =>
            CommitBody.fromRows(spark, table, rows, lines)
          })
        }
        // On the table as read (as delta-spark checks it): a commit that turns appendOnly off
        // cannot remove data in the same breath; one that turns it on still may. The removes
        // counted are those checked and written (the body), not the staged DataFrames again.
        val removed = body.get.files.removes
        if (staged.replacesTable) checkReplacesAll(table, readSnapshot, removed.files)
        ActionRules.checkAppendOnly(
          table.root,
          base.fold(config)(_.config),
          removed.files > removed.withoutDataChange
        )
        val now = ctx.now()
        val ict =
          if (config.inCommitTimestamps) Some(inCommitTimestamp(base, now))
          else None
        // The metadata as written: with the in-commit timestamp enablement where it starts.
        val written =
          m.map(md => ict.fold(md)(WriterRules.withIctEnablementTimestamp(md, version, _)))
        val domains = staged.domains ++ rowDomain.map(d => d.domain -> d)
        val header =
          headerLines(version, req, read, staged, p, written, config, ict, now, domains)
        if (CommitPublisher.publish(table, version, header, body.get, req.txnId)) {
          val checksum = CommitChecksum.Input(
            req.txnId,
            protocol,
            written.getOrElse(metadata),
            ict,
            now,
            staged.txns,
            domains,
            body.get.files
          )
          val report = postCommit(ctx, version, base, checksum)
          return CommitResult(
            version,
            committed = true,
            attempt,
            report.checksum,
            report.checkpoint,
            report.problems
          )
        }
        if (base.isEmpty) {
          throw TxlogErrors.tableAlreadyExists(
            table.root,
            "Another writer created version 0 of the table first."
          )
        }
        val latest = latestAfter(ctx, version)
        // A winner that recorded our app id at or past our version did our work: commit nothing.
        if (alreadyCommitted(table, latest, staged.txns)) {
          return CommitResult(latest.version, committed = false, attempt, None, None, Seq.empty)
        }
        val winners = winningCommits(ctx, version, latest.version)
        ConflictChecker.check(ctx, isolation(base.get.config), read, summary, winners)
        backoff(attempt, backoffMaxMs)
        // The winners are read now (not before the wait): any that landed meanwhile are seen
        // when the next attempt loses again, rather than being read twice.
        base = Some(latest)
        version = latest.version + 1
      }
      throw new IllegalStateException("unreachable")
    } finally body.foreach(_.delete(table))
  }

  /** A random wait after losing attempt `attempt` (full jitter): up to 5 ms after the first,
    * doubling with each further one, at most `maxMs`. Writers that lost the same race started their
    * next attempts in step and would collide again.
    */
  private def backoff(attempt: Int, maxMs: Long): Unit = {
    val bound = math.min(maxMs, BackoffBaseMs << math.min(attempt - 1, 20))
    if (bound > 0) Thread.sleep(ThreadLocalRandom.current().nextLong(bound + 1))
  }

  private val BackoffBaseMs = 5L

  /** INVALID_COMMIT_ACTIONS unless a commit marked as replacing the table removes every file of the
    * snapshot read (`removed`: the distinct live paths its body removes, each checked live there):
    * its metadata was let change types and partitioning on that ground. A concurrent commit adding
    * files conflicts (the whole table was read), so none survives a retry either.
    */
  private def checkReplacesAll(table: TablePath, read: Option[Snapshot], removed: Long): Unit = {
    val live = read.fold(0L)(_.numFiles)
    if (removed != live) {
      throw TxlogErrors.invalidCommitActions(
        table.root,
        s"the commit replaces the table (its schema or partitioning changes) but removes " +
          s"$removed of the $live files of version ${read.fold(-1L)(_.version)}"
      )
    }
  }

  /** INVALID_COMMIT_ACTIONS for staged actions that break the spec, found on the driver. */
  private def checkStaged(table: TablePath, staged: StagedActions): Unit = {
    staged.metadata.foreach { m =>
      if (m.schemaString == null) {
        throw TxlogErrors.invalidCommitActions(table.root, "metaData without schemaString")
      }
    }
    staged.adds.foreach(FileActionLines.checkColumns(table.root, "add", _))
    staged.removes.foreach(FileActionLines.checkColumns(table.root, "remove", _))
    staged.cdc.foreach(FileActionLines.checkColumns(table.root, "cdc", _))
  }

  /** Whether `s` already holds every staged app id at or past its staged version (the commit's work
    * is done). Some but not all is neither done nor new: INVALID_COMMIT_ACTIONS, as skipping would
    * lose the others' work and committing would repeat the done ones'.
    */
  private def alreadyCommitted(table: TablePath, s: Snapshot, txns: Map[String, Long]): Boolean = {
    val done = txns.filter { case (app, v) => s.setTransactions.get(app).exists(_ >= v) }
    if (done.isEmpty) false
    else if (done.size == txns.size) true
    else {
      def names(ids: Iterable[String]) = ids.toSeq.sorted.mkString(", ")
      throw TxlogErrors.invalidCommitActions(
        table.root,
        s"application ids ${names(done.keys)} are at or past their staged versions in version " +
          s"${s.version} but ${names(txns.keySet -- done.keySet)} are not: the commit is " +
          "partly done; stage each application's transaction in a commit of its own"
      )
    }
  }

  private def highWaterMark(base: Option[Snapshot]): Option[Long] =
    base
      .flatMap(_.domainMetadata.get(RowTrackingSpec.Domain))
      .flatMap(ActionLines.highWaterMark)

  def isolation(config: TableConfiguration): IsolationLevel =
    if (config.serializable) IsolationLevel.Serializable else IsolationLevel.WriteSerializable

  /** The in-commit timestamp of a commit on `base` at `now`: after the previous commit's. */
  private def inCommitTimestamp(base: Option[Snapshot], now: Long): Long =
    base.fold(now)(s => math.max(now, s.state.inCommitTimestamp.getOrElse(s.timestamp) + 1))

  /** The driver's lines, commitInfo first, then protocol, metaData, txn, domainMetadata. */
  private def headerLines(
      version: Long,
      req: Request,
      read: ReadSet,
      staged: StagedActions,
      newProtocol: Option[Protocol],
      newMetadata: Option[Metadata],
      config: TableConfiguration,
      ict: Option[Long],
      now: Long,
      domains: Map[String, DomainAction]
  ): Seq[String] = {
    val timestamp = ict.getOrElse(now)
    val info = CommitInfo(
      timestamp,
      ict,
      req.operation,
      req.operationParameters,
      req.operationMetrics,
      Some(read.readVersion).filter(_ >= 0), // the version first read, as delta-spark writes it
      isolation(config).name,
      staged.isBlindAppend(read),
      s"txlog/${BuildInfo.version}",
      req.txnId,
      if (staged.identityOnly && newMetadata.isDefined) {
        Map(txlog.protocol.IdentityColumns.SchemaUpdateTag -> "true")
      } else Map.empty
    )
    Seq(ActionLines.commitInfo(info)) ++
      newProtocol.map(ActionLines.protocol) ++
      newMetadata.map(ActionLines.metadata) ++
      staged.txns.toSeq.sortBy(_._1).map { case (a, v) => ActionLines.txn(a, v, timestamp) } ++
      domains.toSeq.sortBy(_._1).map(d => ActionLines.domain(d._2))
  }

  /** The latest snapshot, at least `version` (the one this writer lost). */
  private def latestAfter(ctx: TableContext, version: Long): Snapshot = {
    val s = ctx.snapshots.update()
    if (s.version >= version) s else ctx.snapshots.fresh()
  }

  /** The commits `from` to `to`, oldest first. */
  private def winningCommits(
      ctx: TableContext,
      from: Long,
      to: Long
  ): Seq[CommitFile] = {
    def of(l: LogListing) = l.commits.filter(c => c.version >= from && c.version <= to)
    val listed = ctx.snapshots.currentListing.map(of).getOrElse(Seq.empty)
    if (listed.size == to - from + 1) listed else of(ctx.snapshots.listing())
  }

  private def postCommit(
      ctx: TableContext,
      version: Long,
      base: Option[Snapshot],
      checksum: CommitChecksum.Input
  ): PostCommitReport =
    try PostCommit.run(ctx, version, base, Some(checksum))
    catch {
      case NonFatal(e) =>
        val cls = e match {
          case t: txlog.TxlogException => t.errorClass
          case _                       => e.getClass.getSimpleName
        }
        PostCommitReport(None, None, Seq(s"$cls: ${e.getMessage}"))
    }
}
