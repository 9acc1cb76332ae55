package txlog

import java.sql.Timestamp

import org.apache.spark.sql.{DataFrame, SparkSession}

import txlog.checkpoint.CheckpointWriter
import txlog.checksum.{ChecksumValidator, ChecksumWriter}
import txlog.history.History
import txlog.log.{LogListing, TablePath}
import txlog.storage.SessionHadoopConf
import txlog.table.TableContext
import txlog.errors.TxlogErrors

/** The transaction log of one Delta table: the entry point for reading snapshots, time travel and
  * history (VACUUM, RESTORE and REPAIR are in [[TableMaintenance]]).
  *
  * {{{
  * val log = txlog.DeltaLog.forTable(spark, "/data/events")
  * val latest = log.snapshot()
  * val v3 = log.snapshot(3L)
  * val yesterday = log.snapshotAsOf("2024-06-01 00:00:00")
  * log.history().show()
  * }}}
  */
final class DeltaLog private (private[txlog] val context: TableContext)
    extends TableMaintenance
    with TableWrites {

  private[txlog] def spark: SparkSession = context.spark
  private[txlog] def table: TablePath = context.table
  private def snapshots = context.snapshots

  /** A log of the same table that remembers no snapshot (replays from storage afresh). */
  private[txlog] def detached(): DeltaLog = new DeltaLog(context.detached())

  /** The listing the remembered snapshot was built from (for tests). */
  private[txlog] def currentListing: Option[LogListing] = snapshots.currentListing

  /** The table's qualified root path. Example: `log.tablePath`. */
  def tablePath: String = table.root

  /** The table's rows at the latest version (see [[Snapshot.toDF]]).
    *
    * {{{
    * log.read().where("date = '2024-06-01'").show()
    * }}}
    */
  def read(): DataFrame = snapshot().toDF

  /** The table's rows at `version`; VERSION_NOT_FOUND when the log cannot reconstruct it.
    *
    * {{{
    * val v3 = log.read(3L)
    * }}}
    */
  def read(version: Long): DataFrame = snapshot(version).toDF

  /** The table's rows as of a timestamp, read as [[snapshotAsOf]] reads it.
    *
    * {{{
    * val then = log.readAsOf("2024-06-01 12:00:00")
    * }}}
    */
  def readAsOf(timestamp: String): DataFrame = snapshotAsOf(timestamp).toDF

  /** The change data feed of versions `startVersion` to `endVersion` (inclusive; an end past the
    * latest version reads to the latest): the table's columns (of the end version) and
    * `_change_type` (insert, delete, update_preimage, update_postimage), `_commit_version` and
    * `_commit_timestamp`, as delta-spark's `table_changes`. A commit's `cdc` files where it has
    * them, else its added and removed data files as inserts and deletes. CHANGE_DATA_NOT_RECORDED
    * naming the first version at which `delta.enableChangeDataFeed` was not true;
    * CHANGE_DATA_SCHEMA_INCOMPATIBLE for a range holding a schema change the end version's schema
    * cannot read (a column renamed, dropped or retyped) or a table with a column named as one the
    * feed adds; VERSION_NOT_FOUND when the start is after the latest version; INVALID_ARGUMENT when
    * the end is before the start.
    *
    * {{{
    * log.changes(2L, 5L).where("_change_type = 'delete'").show()
    * }}}
    */
  def changes(startVersion: Long, endVersion: Long): DataFrame =
    txlog.changes.ChangeFeed.dataFrame(
      context,
      txlog.changes.ChangeRange(Left(startVersion), Some(Left(endVersion)))
    )

  /** The change data feed from `startVersion` to the latest version; see `changes(start, end)`.
    *
    * {{{
    * val since3 = log.changes(3L)
    * }}}
    */
  def changes(startVersion: Long): DataFrame =
    txlog.changes.ChangeFeed.dataFrame(context, txlog.changes.ChangeRange(Left(startVersion), None))

  /** The change data feed between two timestamps (text, read as [[snapshotAsOf]] reads it): from
    * the first commit at or after `startTimestamp` to the last commit at or before `endTimestamp`,
    * as delta-spark's `startingTimestamp` / `endingTimestamp`. TIMESTAMP_OUT_OF_RANGE when the
    * start is after the latest commit or the end outside the log's commits; see `changes(start,
    * end)` for the rest.
    *
    * {{{
    * log.changesAsOf("2024-06-01 00:00:00", "2024-06-02 00:00:00").show()
    * }}}
    */
  def changesAsOf(startTimestamp: String, endTimestamp: String): DataFrame =
    txlog.changes.ChangeFeed.dataFrame(
      context,
      txlog.changes.ChangeRange(Right(startTimestamp), Some(Right(endTimestamp)))
    )

  /** Every file of the log: for history, time travel by timestamp and log hygiene. */
  private[txlog] def listing(): LogListing = snapshots.listing()

  /** The latest snapshot, replayed now (it is remembered for [[update]]). Only the log from the
    * checkpoint `_last_checkpoint` names is listed (all of it when the hint is wrong).
    *
    * {{{
    * val snap = log.snapshot(); snap.numFiles
    * }}}
    */
  def snapshot(): Snapshot = snapshots.fresh()

  /** The snapshot at `version`; VERSION_NOT_FOUND when the log cannot reconstruct it.
    *
    * {{{
    * val v3 = log.snapshot(3L)
    * }}}
    */
  def snapshot(version: Long): Snapshot = snapshots.at(version)

  /** Runs `load` once more when a checkpoint part or sidecar it read vanished after the listing. */
  private[txlog] def relisting[T](load: => T): T = snapshots.relisting(load)

  /** The snapshot as of a timestamp: the latest version committed at or before it.
    * TIMESTAMP_OUT_OF_RANGE when it is before the earliest or after the latest commit.
    *
    * {{{
    * val s = log.snapshotAsOf(java.sql.Timestamp.valueOf("2024-06-01 00:00:00"))
    * }}}
    */
  def snapshotAsOf(timestamp: Timestamp): Snapshot = snapshots.asOf(timestamp)

  /** The snapshot as of a timestamp given as text, read as Spark (and delta-spark's
    * `timestampAsOf`) reads it: `yyyy-MM-dd[ HH:mm:ss[.ffffff]]` in the session time zone
    * (`spark.sql.session.timeZone`), or with its own zone or offset such as `2024-06-01T00:00:00Z`.
    *
    * {{{
    * val s = log.snapshotAsOf("2024-06-01 12:00:00")
    * }}}
    */
  def snapshotAsOf(timestamp: String): Snapshot = snapshots.asOf(timestamp)

  /** The latest snapshot, listing only what changed since the last one this log returned. When that
    * snapshot is cached (or was itself updated from a cached one), the new commits are reconciled
    * onto the cached files: while their file actions fit the driver's overlay budget
    * (`spark.txlog.driver.maxOverlayBytes`) they are reconciled on the driver and the new snapshot
    * shares the cache; past it the new files are cached instead and the old cache released if txlog
    * made it (a snapshot the user cached stays cached until they unpersist it).
    *
    * {{{
    * val s1 = log.snapshot().cache(); /* writers commit */; val s2 = log.update()
    * }}}
    */
  def update(): Snapshot = snapshots.update()

  /** The commit history, newest first: version, timestamp, operation, operationParameters and the
    * other commitInfo fields.
    *
    * {{{
    * log.history().select("version", "timestamp", "operation").show()
    * }}}
    */
  def history(): DataFrame = {
    val l = listing()
    val latest = latestOf(l)
    History.of(spark, l, latest.protocol, latest.metadata)
  }

  /** Writes a checkpoint of `version` (default: the latest) as Spark jobs, verifies it against the
    * snapshot, publishes it and points `_last_checkpoint` at it.
    *
    * `kind` is `classic` (one parquet file), `multipart` (option `parts`, at least 2) or `v2`
    * (UUID-named, options `format` = parquet|json and `sidecars` = true|false); by default the
    * table's `delta.checkpointPolicy`. Multi-part is refused on tables with the v2Checkpoint
    * feature, v2 on tables without it; any unsupported writer feature is refused.
    *
    * {{{
    * log.checkpoint()                                        // latest, table's kind
    * log.checkpoint(Some(42L), Some("multipart"), Map("parts" -> "4"))
    * }}}
    */
  def checkpoint(
      version: Option[Long] = None,
      kind: Option[String] = None,
      options: Map[String, String] = Map.empty
  ): CheckpointResult = CheckpointWriter.write(spark, snapshots.latestOr(version), kind, options)

  /** The latest snapshot of a listing: the remembered one when it is still the latest. */
  private[txlog] def latestOf(l: LogListing): Snapshot = snapshots.latestOf(l)

  /** The latest snapshot, listing from the hint. */
  private def latest(): Snapshot = snapshots.latest()

  // Version checksums: txlog.checksum does the work.

  /** Writes the version checksum file `_delta_log/n.crc` of `version` (computed by one Spark
    * aggregation over the replayed files) and returns its path. Checksums are never overwritten: an
    * existing file that agrees with the replay is kept and its path returned (idempotent), one that
    * disagrees is LOG_FILE_EXISTS. UNSUPPORTED_WRITER_FEATURES when the table uses writer features
    * txlog does not implement.
    *
    * {{{
    * val path = log.writeChecksum(3L) // .../_delta_log/00000000000000000003.crc
    * }}}
    */
  def writeChecksum(version: Long): String = ChecksumWriter.write(snapshot(version))

  /** Writes the version checksum file of the latest version; see `writeChecksum(version)`.
    *
    * {{{
    * val path = log.writeChecksum()
    * }}}
    */
  def writeChecksum(): String = ChecksumWriter.write(latest())

  /** Validates the version checksum file of `version` against a replay of the log, field by field
    * (the spec's "State Validation"). CHECKSUM_NOT_FOUND when the version has no `.crc`,
    * MALFORMED_LOG_FILE when it is not a valid checksum file.
    *
    * {{{
    * val v = log.validateChecksum(3L)
    * if (!v.isValid) v.toDF(spark).show(truncate = false)
    * }}}
    */
  def validateChecksum(version: Long): ChecksumValidation =
    ChecksumValidator.validate(snapshot(version))

  /** Validates the version checksum file of the latest version; see `validateChecksum(version)`.
    *
    * {{{
    * assert(log.validateChecksum().isValid)
    * }}}
    */
  def validateChecksum(): ChecksumValidation = ChecksumValidator.validate(latest())

  // ---- Maintenance: describe and validate (txlog.inspect does the work) ----

  /** DESCRIBE DETAIL's fields for the latest version (format, id, name, location, createdAt,
    * lastModified, partitionColumns, numFiles, sizeInBytes, properties, reader and writer versions,
    * tableFeatures) and the health of the log: the newest checkpoint's kind and age, commits since
    * it, log files and bytes, whether the latest version has a `.crc`. Lists the whole log;
    * counting the files is one Spark job.
    *
    * {{{
    * val d = log.describe()
    * println(s"${d.numFiles} files; ${d.health.commitsSinceCheckpoint} commits since checkpoint")
    * }}}
    */
  def describe(): TableDescription = {
    val l = listing()
    txlog.inspect.Describe.of(spark, l, relisting(latestOf(l)), context.now())
  }

  /** Audits the whole history as Spark jobs and returns the findings (version, file, rule,
    * severity, detail), sorted by version; an intact table has none of severity `error`. Rules:
    * version contiguity; each `.crc` against the replay of its version; in-commit timestamps
    * present and increasing; at most one metaData and protocol per commit; no path added or removed
    * twice in a commit; numRecords in the stats of adds with deletion vectors; the latest version's
    * data and deletion-vector files exist with their sizes; `_last_checkpoint` checksum and
    * pointer; each checkpoint readable and equal to the replay of the commits it covers. The result
    * is persisted (its jobs have run); `unpersist()` releases it. DELTA_TABLE_NOT_FOUND,
    * UNSUPPORTED_READER_* and LOG_READ_FAILED are raised, not reported.
    *
    * {{{
    * val findings = log.validate()
    * findings.where("severity = 'error'").show(truncate = false)
    * }}}
    */
  def validate(): DataFrame = txlog.inspect.Validator.run(spark, table)

  // ---- Transactions ----

  /** A new transaction on the latest snapshot (found with [[update]]).
    *
    * {{{
    * val txn = log.startTransaction(); txn.addFiles(newFiles); txn.commit()
    * }}}
    */
  def startTransaction(): Transaction = Transaction.start(context)

  // ---- Log hygiene: log compaction and metadata cleanup ----

  /** Writes the log compaction file `<start>.<end>.compacted.json`: the reconciled actions of
    * commits `start` to `end` ("Log Compaction Files"), which readers then use instead of those
    * commits. Nothing changes when the same compaction already exists; LOG_FILE_EXISTS when a
    * different one does. INVALID_ARGUMENT unless start <= end <= the latest version and all those
    * commits exist; MALFORMED_LOG_FILE (and nothing written) when one is corrupt;
    * UNSUPPORTED_WRITER_FEATURES when the table uses writer features txlog does not know. Returns
    * the compaction file's path.
    *
    * {{{
    * val file = log.compact(0L, 9L) // .../_delta_log/000...000.000...009.compacted.json
    * }}}
    */
  def compact(start: Long, end: Long): String = {
    val l = listing()
    txlog.compaction.LogCompactor.compact(spark, l, latestOf(l).protocol, start, end)
  }

  /** Metadata cleanup ("Metadata Cleanup"): deletes the commits, checkpoints and checksums older
    * than the newest checkpoint that is at or below the newest commit older than midnight UTC of
    * (now - `retention`), log compactions starting at or below that checkpoint, and unreferenced
    * sidecars older than a day; every version from that commit on stays readable. Whatever the
    * retention, temporary files and staging directories of txlog writers that died, older than a
    * day, go too. `retention` is a duration such as "30 days" (default: the table's
    * delta.logRetentionDuration, 30 days unless set). With `dryRun` (the default) nothing is
    * deleted.
    *
    * Returns one row per candidate file, oldest first: path, kind (commit, checkpoint, checksum,
    * compaction, sidecar, leftover), version (a compaction's start version; -1 for sidecars and
    * leftovers), sizeInBytes, modificationTime, deleted and reason. When no log file may be deleted
    * (no commit is old enough, or no checkpoint covers the cutoff) a row of kind "none" says why.
    *
    * Fails closed: a retention shorter than the table's is CLEANUP_RETENTION_TOO_SHORT unless
    * `force`; `delta.enableExpiredLogCleanup=false` keeps every log file (a "none" row says so);
    * the cutoff checkpoint is read whole before anything older is deleted (a "none" row when it
    * cannot be); a failed delete stops the log files' deletes after it, each row saying whether its
    * file was deleted and why not.
    *
    * {{{
    * log.cleanup().show()                                         // what would be deleted
    * log.cleanup(Some("7 days"), dryRun = false, force = true)    // below the table's 30 days
    * }}}
    */
  def cleanup(
      retention: Option[String] = None,
      dryRun: Boolean = true,
      force: Boolean = false
  ): DataFrame = txlog.cleanup.MetadataCleanup.run(context, retention, dryRun, force)
}

object DeltaLog {

  /** The log of the table at `path` (any Hadoop file system URI). Nothing is read until a snapshot
    * is asked for.
    *
    * {{{
    * val log = DeltaLog.forTable(spark, "s3a://bucket/events")
    * }}}
    */
  def forTable(spark: SparkSession, path: String): DeltaLog = {
    if (path == null || path.trim.isEmpty) {
      throw TxlogErrors.invalidArgument("path", "must be a non-empty table path")
    }
    BuildInfo.runtimeMismatch.foreach(why => throw TxlogErrors.jarSparkMismatch(why))
    new DeltaLog(new TableContext(spark, TablePath.qualified(path, SessionHadoopConf.of(spark))))
  }

  /** Writes `df`'s rows to the table at `path` as parquet files with statistics, one `WRITE`
    * commit: appended, or replacing files (`overwrite`); an absent table is created (see
    * [[WriteOptions]], docs/writing.md). Refused before a file is written: SCHEMA_MISMATCH,
    * TABLE_ALREADY_EXISTS (`error`), UNSUPPORTED_WRITER_FEATURES, INVALID_ARGUMENT; a row breaking
    * a constraint fails the job (CONSTRAINT_VIOLATION), a concurrent commit may conflict: no commit
    * then, and the files written are named by no version.
    *
    * {{{
    * val r = DeltaLog.write(df, "/data/events", WriteOptions(partitionBy = Seq("date")))
    * }}}
    */
  def write(df: DataFrame, path: String, options: WriteOptions = WriteOptions()): WriteResult = {
    if (df == null) throw TxlogErrors.invalidArgument("df", "is null")
    val log = forTable(df.sparkSession, path)
    txlog.write.DataFrameWrite.write(log.context, df, Option(options).getOrElse(WriteOptions()))
  }

  /** Creates a Delta table at `path`: commits version 0 with the protocol and metadata the schema,
    * partition columns and table properties (`delta.*` keys enable features) need, created now.
    * TABLE_ALREADY_EXISTS when `_delta_log` holds a commit or checkpoint, or another writer creates
    * version 0 first.
    *
    * {{{
    * val log = DeltaLog.createTable(spark, "/data/events", schema, Seq("date"),
    *   Map("delta.appendOnly" -> "true"))
    * }}}
    */
  def createTable(
      spark: SparkSession,
      path: String,
      schema: org.apache.spark.sql.types.StructType,
      partitionBy: Seq[String],
      properties: Map[String, String]
  ): DeltaLog = {
    val log = forTable(spark, path)
    txlog.txn.TableCreation.create(log.context, schema, partitionBy, properties)
    log
  }
}
