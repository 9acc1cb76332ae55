package txlog

import org.apache.spark.sql.{Column, DataFrame}

import txlog.table.TableContext
import txlog.protocol.ActionSchemas
import txlog.txn.{ActionEntries, Committer, DvUpdates, ReadSet, StagedActions}
import txlog.protocol.DomainAction
import txlog.errors.TxlogErrors

/** A transaction on a table: what it read (for conflict checks) and what it stages, committed as
  * one new version with optimistic concurrency. Start one with `DeltaLog.startTransaction()`; it
  * commits once.
  *
  * {{{
  * val txn = log.startTransaction()
  * val old = txn.readFiles(col("partitionValues_parsed.date") === "2024-01-01")
  * txn.removeFiles(old.select("path", "size", "partitionValues", lit(true).as("dataChange")))
  * txn.addFiles(newFiles)
  * val r = txn.commit("OVERWRITE")
  * }}}
  */
final class Transaction private[txlog] (
    ctx: TableContext,
    /** The snapshot the transaction read (None: it creates the table). */
    private[txlog] val readSnapshot: Option[Snapshot]
) {
  private var predicates = Vector.empty[Column]
  private var wholeTable = false
  private var filesRead = Vector.empty[DataFrame]
  private var appIdsRead = Set.empty[String]
  private var domainsRead = Set.empty[String]
  private var staged = StagedActions(Nil, Nil, Nil, None, None, Map.empty, Map.empty)
  private var result: Option[CommitResult] = None
  private var commitCalled = false

  /** The version the transaction read (-1 when it creates the table). Example: `txn.readVersion`.
    */
  def readVersion: Long = readSnapshot.fold(-1L)(_.version)

  private def snap: Snapshot = readSnapshot.getOrElse(
    throw TxlogErrors.invalidArgument("transaction", "the table does not exist yet")
  )

  private def recordFiles(predicate: Option[Column]): DataFrame = synchronized {
    val all = snap.allFiles
    val df = predicate.fold(all)(all.where)
    predicate.fold { wholeTable = true }(p => predicates :+= p)
    filesRead :+= df
    df
  }

  /** The files of the read snapshot matching `predicate` (over the columns of `Snapshot.allFiles`,
    * `partitionValues_parsed` and `stats_parsed` included), recorded for conflict checks.
    *
    * {{{
    * val files = txn.readFiles(col("partitionValues_parsed.date") === "2024-01-01")
    * }}}
    */
  def readFiles(predicate: Column): DataFrame = recordFiles(Some(predicate))

  /** Every file of the read snapshot, recorded as reading the whole table.
    *
    * {{{
    * val all = txn.readFiles()
    * }}}
    */
  def readFiles(): DataFrame = recordFiles(None)

  /** Records `files` (rows of the read snapshot's `allFiles`) as read, with no predicate: only a
    * concurrent commit removing one of them conflicts (OPTIMIZE's bins, which concurrent appends
    * leave valid).
    */
  private[txlog] def readFilesOnly(files: DataFrame): Unit = synchronized { filesRead :+= files }

  /** Records that the transaction depends on the whole table (any concurrent change to its files
    * conflicts).
    *
    * {{{
    * txn.readWholeTable()
    * }}}
    */
  def readWholeTable(): Unit = synchronized { wholeTable = true }

  /** The version of application `appId`'s latest transaction in the read snapshot; the app id is
    * recorded as read.
    *
    * {{{
    * if (txn.txnVersion("stream-1").forall(_ < batch)) { ... }
    * }}}
    */
  def txnVersion(appId: String): Option[Long] = synchronized {
    appIdsRead += appId
    readSnapshot.flatMap(_.setTransactions.get(appId))
  }

  /** Stages add actions: a DataFrame shaped like `Snapshot.allFiles` (`path`, `size`,
    * `partitionValues`, `modificationTime`, `dataChange` required; the other spec fields optional;
    * other columns ignored).
    *
    * {{{
    * txn.addFiles(newFiles)
    * }}}
    */
  def addFiles(df: DataFrame): Transaction = stage(s => s.copy(adds = s.adds :+ df))

  /** [[addFiles]] of adds given as a JSON array of objects with the spec's field names (Python's
    * `add_files` of a list of dicts): parsed on the driver, without a Spark job.
    */
  private[txlog] def addFileEntries(json: String): Transaction =
    addFiles(ActionEntries.frame(ctx.spark, ctx.root, "add", ActionSchemas.add, json))

  /** [[removeFiles]] of removes given as a JSON array of objects, as [[addFileEntries]]. */
  private[txlog] def removeFileEntries(json: String): Transaction =
    removeFiles(ActionEntries.frame(ctx.spark, ctx.root, "remove", ActionSchemas.remove, json))

  /** Stages remove actions: a DataFrame shaped like `Snapshot.tombstones` or `allFiles` (`path` and
    * `dataChange` required); `deletionTimestamp` is the commit time where absent, and
    * `extendedFileMetadata`, `partitionValues`, `size`, `stats`, `deletionVector` are kept when
    * given. Each remove must name a file live in the snapshot read, by path: without a
    * `deletionVector` it takes the live file's (so the file is removed whatever its deletion
    * vector); a path that is not live, or a deletion vector that is not the live one, fails the
    * commit with INVALID_COMMIT_ACTIONS before anything is written.
    *
    * {{{
    * txn.removeFiles(txn.readFiles(cond).withColumn("dataChange", lit(true)))
    * }}}
    */
  def removeFiles(df: DataFrame): Transaction = stage(s => s.copy(removes = s.removes :+ df))

  /** Stages new deletion vectors of files: for each row of `files` (rows of the read snapshot's
    * `allFiles` with a column `newDeletionVector`, the file's new DV with its current one merged
    * in), a remove of the file with its current DV and an add of the same file with the new one
    * ([[txlog.txn.DvUpdates]]); the commit then checks them as any remove and add.
    *
    * {{{
    * txn.updateDeletionVectors(txn.readFiles(cond).withColumn("newDeletionVector", dvs))
    * }}}
    */
  private[txlog] def updateDeletionVectors(files: DataFrame): Transaction = {
    removeFiles(DvUpdates.removes(files))
    addFiles(DvUpdates.adds(ctx.root, files))
  }

  /** Stages cdc actions (`path`, `partitionValues`, `size`, `dataChange`; `tags` optional).
    *
    * {{{
    * txn.addCdcFiles(changeFiles)
    * }}}
    */
  def addCdcFiles(df: DataFrame): Transaction = stage(s => s.copy(cdc = s.cdc :+ df))

  /** Stages a metaData action replacing the table's. A CHECK constraint or column invariant that
    * does not parse is INVALID_METADATA here; one the table did not have is checked against every
    * row of the version read when committing (CONSTRAINT_VIOLATION if a row breaks it), and the
    * transaction then reads the whole table.
    *
    * {{{
    * txn.updateMetadata(snap.metadata.copy(configuration = Map("delta.appendOnly" -> "true")))
    * }}}
    */
  def updateMetadata(md: Metadata): Transaction = {
    if (md == null) throw TxlogErrors.invalidArgument("metadata", "is null")
    // a schema that does not parse is INVALID_METADATA at commit, with the rest of its checks
    if (scala.util.Try(md.schema).isSuccess) txlog.protocol.Constraints.validate(ctx.root, md)
    stage(_.copy(metadata = Some(md), identityOnly = false))
  }

  /** Stages `md`: the metadata staged (or read, when none is) with identity columns' high water
    * marks raised by the rows this transaction writes ([[txlog.write.IdentityWrites]]). When it is
    * the only metadata change, the commit is tagged as delta-spark tags it, so that concurrent
    * transactions that change no metadata do not conflict with it.
    */
  private[txlog] def raiseIdentityHighWaterMarks(md: Metadata): Transaction = stage { s =>
    s.copy(metadata = Some(md), identityOnly = s.metadata.isEmpty || s.identityOnly)
  }

  /** Stages a protocol action replacing the table's.
    *
    * {{{
    * val dv = Some(Set("deletionVectors"))
    * txn.upgradeProtocol(Protocol(3, 7, dv, dv))
    * }}}
    */
  def upgradeProtocol(p: Protocol): Transaction = stage(_.copy(protocol = Some(p)))

  /** Marks the transaction as a RESTORE: its staged metadata is an older version's (see
    * [[txlog.txn.StagedActions]]).
    */
  private[txlog] def restoring(): Transaction = stage(_.copy(restoring = true))

  /** Marks the transaction as replacing the whole table: it removes every file of the snapshot read
    * (checked at commit: INVALID_COMMIT_ACTIONS otherwise), so its metadata may change column types
    * and partition columns (an overwrite with `overwriteSchema`). The whole table counts as read,
    * so a concurrent commit adding or removing files conflicts.
    */
  private[txlog] def replacingTable(): Transaction = stage { s =>
    wholeTable = true
    s.copy(replacesTable = true)
  }

  /** Stages a txn action: application `appId` committed its `version`. The commit is skipped
    * (committed = false) when the table already holds every staged app id at its staged version or
    * later; when it holds some but not all, the commit fails with INVALID_COMMIT_ACTIONS.
    *
    * {{{
    * txn.setAppTransaction("stream-1", 42L)
    * }}}
    */
  def setAppTransaction(appId: String, version: Long): Transaction = {
    if (appId == null || appId.isEmpty) throw TxlogErrors.invalidArgument("appId", "is empty")
    stage { s => appIdsRead += appId; s.copy(txns = s.txns + (appId -> version)) }
  }

  /** Stages a domainMetadata action setting `domain`'s configuration. The table needs the
    * domainMetadata writer feature (INVALID_COMMIT_ACTIONS on commit otherwise); domains starting
    * with `delta.` are the system's (INVALID_ARGUMENT).
    *
    * {{{
    * txn.setDomain("myapp.settings", """{"k":1}""")
    * }}}
    */
  def setDomain(domain: String, configuration: String): Transaction = stage { s =>
    userDomain(domain)
    if (configuration == null) throw TxlogErrors.invalidArgument("configuration", "is null")
    domainsRead += domain
    s.copy(domains = s.domains + (domain -> DomainAction(domain, configuration, removed = false)))
  }

  /** Stages the removal of `domain` (a domainMetadata tombstone carrying its configuration).
    *
    * {{{
    * txn.removeDomain("myapp.settings")
    * }}}
    */
  def removeDomain(domain: String): Transaction = stage { s =>
    userDomain(domain)
    domainsRead += domain
    val conf = readSnapshot.flatMap(_.domainMetadata.get(domain)).getOrElse("")
    s.copy(domains = s.domains + (domain -> DomainAction(domain, conf, removed = true)))
  }

  /** INVALID_ARGUMENT for an empty domain name or a system-controlled one (`delta.` prefix): the
    * spec's "Domain Metadata" forbids letting users modify those.
    */
  private def userDomain(domain: String): Unit =
    if (domain == null || domain.isEmpty) throw TxlogErrors.invalidArgument("domain", "is empty")
    else if (domain.toLowerCase(java.util.Locale.ROOT).startsWith("delta.")) {
      throw TxlogErrors.invalidArgument(
        "domain",
        s"'$domain' is a system-controlled domain (prefix delta.); users cannot modify those"
      )
    }

  private def stage(f: StagedActions => StagedActions): Transaction = synchronized {
    if (commitCalled) throw TxlogErrors.transactionAlreadyCommitted(ctx.root)
    staged = f(staged)
    this
  }

  /** The read set, for conflict checks. */
  private[txlog] def readSet: ReadSet = synchronized {
    val md = readSnapshot.map(_.metadata)
    ReadSet(readVersion, predicates, wholeTable, filesRead, appIdsRead, domainsRead, md)
  }

  /** Commits the staged actions as the next version, retrying over concurrent commits that do not
    * conflict. A transaction commits once.
    *
    * {{{
    * val r = txn.commit("WRITE", Map("mode" -> "Append", "partitionBy" -> "[]"))
    * }}}
    */
  def commit(
      operation: String = "WRITE",
      operationParameters: Map[String, String] = Map.empty,
      operationMetrics: Map[String, String] = Map.empty
  ): CommitResult = {
    val (read, actions) = synchronized {
      if (commitCalled) throw TxlogErrors.transactionAlreadyCommitted(ctx.root)
      commitCalled = true
      checkNewConstraints()
      (readSet, staged)
    }
    val r = Committer.commit(
      ctx,
      readSnapshot,
      read,
      actions,
      operation,
      operationParameters,
      operationMetrics
    )
    synchronized { result = Some(r) }
    r
  }

  /** A staged metadata adding CHECK constraints or invariants: the rows of the version read checked
    * against them ([[txlog.write.NewConstraints]]), and the whole table marked as read. A restore
    * (an older version's metadata) and a commit replacing every file are not checked: no row of the
    * version read stays.
    */
  private def checkNewConstraints(): Unit =
    for {
      snap <- readSnapshot
      md <- staged.metadata
      if !staged.restoring && !staged.replacesTable
    } {
      val added = txlog.write.NewConstraints.added(ctx.root, snap.metadata, md)
      if (added.nonEmpty) {
        if (staged.adds.nonEmpty) {
          throw TxlogErrors.invalidCommitActions(
            ctx.root,
            s"the commit adds ${added.map(_.name).mkString(", ")} and data files: the files " +
              "staged are not checked against a new constraint; commit the constraint first, " +
              "then the files (their rows are checked as they are written)"
          )
        }
        wholeTable = true
        txlog.write.NewConstraints.verify(ctx.root, snap, md.schema, added)
      }
    }

  /** The result of [[commit]], once committed. Example: `txn.commitResult.map(_.version)`. */
  def commitResult: Option[CommitResult] = synchronized(result)
}

private[txlog] object Transaction {

  /** A transaction on the latest snapshot of `ctx`'s table (found with `update`). */
  def start(ctx: TableContext): Transaction = new Transaction(ctx, Some(ctx.snapshots.update()))

  /** A transaction on `snapshot` of `ctx`'s table, one a Spark plan already read (a row-level
    * operation's scan): conflicts are checked from its version on.
    */
  def at(ctx: TableContext, snapshot: Snapshot): Transaction = {
    if (snapshot.tablePath != ctx.root) {
      throw TxlogErrors.invalidArgument(
        "snapshot",
        s"is of ${snapshot.tablePath}, not of the transaction's table ${ctx.root}"
      )
    }
    new Transaction(ctx, Some(snapshot))
  }

  /** A transaction creating the table (read version -1). */
  def creating(ctx: TableContext): Transaction = new Transaction(ctx, None)
}
