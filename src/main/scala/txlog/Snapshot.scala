package txlog

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.storage.StorageLevel

import txlog.log.LogSegment
import txlog.replay.{CachedBase, FileCounts, CachedFiles, NonFileState, ReadErrors, SnapshotLoader}
import txlog.replay.{DriverFileActions, TypedStatsSource}
import txlog.protocol.FileColumns
import txlog.protocol.TableConfiguration
import txlog.util.Jobs

/** The state of a Delta table at one version: protocol, metadata, live files, tombstones,
  * transaction ids and domain metadata, reconstructed from the log by a Spark job.
  *
  * Protocol, metadata, transactions and domain metadata are held on the driver; files stay in
  * DataFrames and are computed by Spark when asked for, never collected.
  *
  * {{{
  * val snap = DeltaLog.forTable(spark, "/data/events").snapshot()
  * println(s"v${snap.version}: ${snap.numFiles} files, ${snap.sizeInBytes} bytes")
  * snap.allFiles.where("partitionValues_parsed.date = '2024-01-01'").show()
  * }}}
  */
final class Snapshot private[txlog] (
    private[txlog] val spark: SparkSession,
    private[txlog] val segment: LogSegment,
    private[txlog] val state: NonFileState,
    /** The commit timestamp of this version, in milliseconds since the epoch. */
    val timestamp: Long,
    files: => DataFrame,
    lean: => DataFrame,
    counter: Long => FileCounts,
    private[txlog] val cachedBase: Option[CachedBase] = None,
    /** The checkpoint's typed statistics, for scans (None: built on a cached state). */
    private[txlog] val typedStats: Option[TypedStatsSource] = None,
    /** Whether the files are counted on the driver without reading a file again (a small tail, and
      * a checkpoint read on the driver whose files were tallied as its state was read).
      */
    countsOnDriver: Boolean = false,
    /** The file list built on the driver as a local relation, when the table is small enough. */
    localFiles: () => Option[DataFrame] = () => None,
    /** The reconciled file actions readable on the driver without a job, when the table is small
      * enough (VACUUM's kept paths).
      */
    private[txlog] val driverFileActions: Option[DriverFileActions] = None
) {

  /** The reconciled file actions (pathKey, dvId, add, remove), planned on first use. */
  private[txlog] lazy val reconciledFiles: DataFrame = { filesPlanned = true; files }
  @volatile private var filesPlanned = false
  private[txlog] lazy val leanFiles: DataFrame = lean

  /** The reconciled files in the shape counting needs; cached beside them by [[cache]]. */
  private[txlog] lazy val countingFiles: DataFrame = FileCounts.counting(reconciledFiles)

  /** The table version. Example: `snap.version`. */
  def version: Long = segment.version

  /** The table's root path, qualified. Example: `snap.tablePath` is `file:/data/events`. */
  def tablePath: String = segment.table.root

  /** The version of the checkpoint replay started from, if any. Example: `snap.checkpointVersion`.
    */
  def checkpointVersion: Option[Long] = segment.checkpoint.map(_.version)

  /** The protocol in force. Example: `snap.protocol.minReaderVersion`. */
  def protocol: Protocol = state.protocol.get

  /** The metadata in force. Example: `snap.metadata.schema.printTreeString()`. */
  def metadata: Metadata = state.metadata.get

  /** Table properties, with the defaults for those not set. Example:
    * `snap.tableProperties("delta.appendOnly")`.
    */
  def tableProperties: Map[String, String] = config.properties

  /** The protocol, metadata and typed properties of this version: what every rule reads. */
  private[txlog] lazy val config: TableConfiguration = TableConfiguration(protocol, metadata)

  /** When this snapshot was built (ms since the epoch): the "now" that expiry of tombstones and
    * transactions is measured from, fixed for the snapshot's life as delta-spark fixes its
    * retention timestamps per snapshot, so that counts and lists agree however long it is kept.
    */
  private[txlog] val builtAt: Long = Snapshot.now(spark)

  /** The latest transaction version per application id. Example:
    * `snap.setTransactions.get("my-stream")`.
    */
  def setTransactions: Map[String, Long] = liveTransactions.map(t => t.appId -> t.version).toMap

  /** The txn actions in force as of when the snapshot was built ([[builtAt]]), sorted by appId.
    */
  private[txlog] def liveTransactions: Seq[txlog.replay.SetTransaction] =
    liveTransactionsAt(builtAt)

  /** The txn actions in force at time `now`, sorted by appId: all of them, or with
    * `delta.setTransactionRetentionDuration` set, those updated within it before `now`.
    */
  private[txlog] def liveTransactionsAt(now: Long): Seq[txlog.replay.SetTransaction] = {
    val cutoff = config.setTransactionRetentionMillis.map(now - _)
    state.txns.values.toSeq
      .filter(t => cutoff.forall(c => t.lastUpdated.exists(_ > c)))
      .sortBy(_.appId)
  }

  /** Domain metadata in force, configuration by domain. Example: `snap.domainMetadata.keys`. */
  def domainMetadata: Map[String, String] =
    state.domains.map { case (k, d) => k -> d.configuration }

  /** The live files: one add action per row with every spec field, plus `partitionValues_parsed`
    * (typed per the schema) and `stats_parsed` (stats as a struct). A small table's (its log read
    * on the driver, up to 10,000 files) is a local relation built on the driver: collecting it runs
    * no Spark job. A cached snapshot with a checkpoint lists its cached files instead of reading
    * the checkpoint again.
    *
    * {{{
    * snap.allFiles.select("path", "size", "stats_parsed.numRecords").show()
    * }}}
    */
  def allFiles: DataFrame =
    (if (segment.checkpoint.isDefined && isCached) None else localFiles())
      .getOrElse(plannedAllFiles)

  /** [[allFiles]] as Spark plans it over the file state, whatever the table's size. */
  private[txlog] def plannedAllFiles: DataFrame = {
    val md = metadata
    reconciledFiles
      .where(col("add").isNotNull)
      .select(
        col("add.*"),
        FileColumns
          .partitionValuesParsed(col("add.partitionValues"), md)
          .as("partitionValues_parsed"),
        FileColumns.statsParsed(col("add.stats"), md).as("stats_parsed")
      )
  }

  /** The table's rows at this version, as a DataFrame with the table's logical schema. Spark reads
    * the data files the log lists, skipping files by partition values and statistics, with deletion
    * vectors applied and columns mapped to their physical names; the files are selected by a Spark
    * job over the snapshot's file state when a query runs.
    *
    * {{{
    * val rows = log.snapshot().toDF.where("date = '2024-06-01' AND amount > 100")
    * }}}
    */
  def toDF: DataFrame = txlog.scan.TableScan.dataFrame(this)

  /** The tombstones: remove actions of files no longer in the table, that are not yet expired
    * (deleted less than `delta.deletedFileRetentionDuration` before the snapshot was built; VACUUM
    * must keep those files). The same ones [[numTombstones]] counts, however long the snapshot is
    * kept.
    *
    * {{{
    * snap.tombstones.select("path", "deletionTimestamp").show()
    * }}}
    */
  def tombstones: DataFrame = reconciledFiles
    .where(
      col("remove").isNotNull &&
        coalesce(col("remove.deletionTimestamp"), lit(0L)) > lit(tombstoneCutoff)
    )
    .select("remove.*")

  /** Remove actions deleted at or before this time (ms) are expired; fixed when the snapshot is
    * built (see [[builtAt]]).
    */
  private[txlog] lazy val tombstoneCutoff: Long =
    builtAt - config.deletedFileRetentionMillis

  /** The number of live files. Example: `snap.numFiles`. */
  def numFiles: Long = counts.files

  /** The total size of live files in bytes. Example: `snap.sizeInBytes`. */
  def sizeInBytes: Long = counts.bytes

  /** The number of unexpired tombstones (see [[tombstones]]). Example: `snap.numTombstones`. */
  def numTombstones: Long = counts.tombstones

  @volatile private var countsCache: Option[FileCounts] = None

  /** The counts when known, or when counting them reads nothing and runs no job (see the
    * constructor's `countsOnDriver`); None when counting would read files. A summary of the
    * snapshot carries them this way at no cost.
    */
  private[txlog] def countsWithoutJob: Option[FileCounts] =
    countsCache.orElse(if (countsOnDriver && !isCached) Some(counts) else None)

  /** Whether a checkpoint part or sidecar that vanished while counting is looked for again by
    * listing the log (once: false on the snapshot that retry builds).
    */
  @volatile private[txlog] var relistsVanished = true

  private def counts: FileCounts = countsCache.getOrElse {
    val cutoff = tombstoneCutoff
    val counted =
      try count(cutoff)
      catch {
        case e: TxlogException
            if relistsVanished && !isCached && ReadErrors.vanishedCheckpoint(e) =>
          val again = SnapshotLoader.reload(spark, segment)
          again.relistsVanished = false
          again.count(cutoff)
      }
    countsCache = Some(counted)
    counted
  }

  private def count(cutoff: Long): FileCounts = ReadErrors.translate(segment, state.sidecars) {
    if (isCached) {
      FileCounts.aggregate(spark, countingFiles, cutoff, s"count files of $tablePath v$version")
    } else counter(cutoff)
  }

  /** Keeps the reconciled files in memory (spilling to disk), materializes them, and returns this
    * snapshot. `DeltaLog.update()` builds on a cached snapshot instead of replaying again.
    *
    * {{{
    * val snap = log.snapshot().cache(); ...; val next = log.update()
    * }}}
    */
  def cache(): Snapshot = synchronized {
    cachedByUser = true
    cacheFiles()
  }

  /** Whether the user called [[cache]]: then the cache stays until they call [[unpersist]]. */
  @volatile private var cachedByUser = false

  /** Caches as [[cache]] does, for txlog's own use (see `SnapshotLoader.update`); txlog may release
    * such a cache with [[releaseOwnCache]], unless the user has also asked for it.
    */
  private[txlog] def cacheFiles(): Snapshot = synchronized {
    if (!isCached) {
      reconciledFiles.persist(StorageLevel.MEMORY_AND_DISK)
      countingFiles.persist(StorageLevel.MEMORY_AND_DISK)
      countsCache = None
      counts
      fileIndex = CachedFiles.build(
        spark,
        countingFiles,
        countsCache.get,
        s"index files of $tablePath v$version"
      )
    }
    this
  }

  /** The cached files hashed by key for counting updates (see [[CachedFiles]]), set by [[cache]].
    */
  @volatile private[txlog] var fileIndex: Option[CachedFiles] = None

  /** Whether [[cache]] was called and not undone. Example: `snap.isCached`. */
  def isCached: Boolean = filesPlanned && reconciledFiles.storageLevel != StorageLevel.NONE

  /** The storage level of the cached files: `NONE` unless cached. Example: `snap.storageLevel`. */
  def storageLevel: StorageLevel =
    if (filesPlanned) reconciledFiles.storageLevel else StorageLevel.NONE

  /** Releases what [[cache]] kept. Example: `snap.unpersist()`. */
  def unpersist(): Unit = synchronized {
    cachedByUser = false
    if (filesPlanned) {
      fileIndex.foreach(_.unpersist())
      fileIndex = None
      countingFiles.unpersist(blocking = false)
      reconciledFiles.unpersist(blocking = false)
    }
  }

  /** Releases a cache txlog made ([[cacheFiles]]) and no longer builds on; a cache the user asked
    * for stays.
    */
  private[txlog] def releaseOwnCache(): Unit = synchronized {
    if (!cachedByUser) unpersist()
  }

  /** The cached snapshot whose files this one's build on: itself when cached, else the root of the
    * updates it came from (see `DeltaLog.update`), while that is still cached.
    */
  private[txlog] def cachedRoot: Option[Snapshot] =
    if (isCached) Some(this) else cachedBase.map(_.root).filter(_.isCached)

  override def toString: String = s"Snapshot($tablePath, version=$version)"
}

private[txlog] object Snapshot {

  /** The time snapshots are built at ([[txlog.util.Clock]]). */
  private def now(spark: SparkSession): Long = txlog.util.Clock.now()
}
