package txlog.python

import java.util.{Map => JMap}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, SparkSession}

import txlog.util.OptionValues
import txlog.timetravel.VersionOrTimestamp
import txlog.{BuildInfo, DeltaLog, RepairResult, RestoreResult, Snapshot, Summarized}
import txlog.VacuumResult
import txlog.errors.TxlogErrors

/** The one entry point the Python package calls through py4j. It takes only strings, maps and
  * DataFrames (plus the handles it returned), so argument conversion stays trivial on the Python
  * side; all protocol logic lives in the Scala API it delegates to. Its transaction methods are in
  * [[TransactionFacade]], the conversions in [[FacadeArgs]].
  *
  * {{{
  * # Python
  * jlog = jvm.txlog.python.PythonFacade.forTable(spark._jsparkSession, "/data/t")
  * }}}
  */
object PythonFacade extends TransactionFacade with WriteFacade {

  /** The jar's version, checked by the Python package. Example: `PythonFacade.version()`. */
  def version(): String = BuildInfo.version

  /** Example: `PythonFacade.forTable(jspark, "/data/t")`. */
  def forTable(spark: SparkSession, path: String): DeltaLog = DeltaLog.forTable(spark, path)

  /** The table's qualified root path. Example: `PythonFacade.tablePath(log)`. */
  def tablePath(log: DeltaLog): String = log.tablePath

  /** A snapshot by options: none for the latest, `version` (a whole number) or `timestamp` (text,
    * see `DeltaLog.snapshotAsOf`). Example: `PythonFacade.snapshot(log, {"version": "3"})`.
    */
  def snapshot(log: DeltaLog, options: JMap[String, String]): Snapshot = {
    val o = Option(options).map(_.asScala.toMap).getOrElse(Map.empty)
    VersionOrTimestamp.of(
      "version",
      o.get("version").map(wholeNumber("version", _)),
      "timestamp",
      o.get("timestamp")
    ) match {
      case Some(Left(v))  => log.snapshot(v)
      case Some(Right(t)) => log.snapshotAsOf(t)
      case None           => log.snapshot()
    }
  }

  /** The change data feed the options name: `start` / `end` (whole numbers, `end` optional) or
    * `startTimestamp` / `endTimestamp` (text), see `DeltaLog.changes`. Example:
    * `PythonFacade.changes(log, {"start": "2", "end": "5"})`.
    */
  def changes(log: DeltaLog, options: JMap[String, String]): DataFrame = {
    val o = Option(options).map(_.asScala.toMap).getOrElse(Map.empty)
    val start = VersionOrTimestamp
      .of(
        "start",
        o.get("start").map(wholeNumber("start", _)),
        "start_timestamp",
        o.get("startTimestamp")
      )
      .getOrElse(throw TxlogErrors.invalidArgument("start", "give start or start_timestamp"))
    val end = VersionOrTimestamp
      .of("end", o.get("end").map(wholeNumber("end", _)), "end_timestamp", o.get("endTimestamp"))
    txlog.changes.ChangeFeed.dataFrame(log.context, txlog.changes.ChangeRange(start, end))
  }

  /** The table's rows at the snapshot the options name (see [[snapshot]]). Example:
    * `PythonFacade.read(log, {"version": "3"})`.
    */
  def read(log: DeltaLog, options: JMap[String, String]): DataFrame = snapshot(log, options).toDF

  /** A snapshot's rows. Example: `PythonFacade.toDF(snapshot)`. */
  def toDF(snapshot: Snapshot): DataFrame = snapshot.toDF

  /** Example: `PythonFacade.update(log)`. */
  def update(log: DeltaLog): Snapshot = log.update()

  /** Example: `PythonFacade.history(log)`. */
  def history(log: DeltaLog): DataFrame = log.history()

  /** Example: `PythonFacade.allFiles(snap)`. */
  def allFiles(snapshot: Snapshot): DataFrame = snapshot.allFiles

  /** The rows of `df` pickled for Python when the driver holds them (see [[LocalRows]]), as text
    * (base64, in parts when long), or null. Example: `call_text(PythonFacade.localRows, jdf)`.
    */
  def localRows(df: DataFrame): AnyRef = LocalRows.of(df)

  /** Example: `PythonFacade.tombstones(snap)`. */
  def tombstones(snapshot: Snapshot): DataFrame = snapshot.tombstones

  /** The snapshot's counts as JSON, in one answer. Example: `PythonFacade.fileCounts(snap)` is
    * `{"numFiles":3,"sizeInBytes":1024,"numTombstones":0}`.
    */
  def fileCounts(snapshot: Snapshot): String =
    s"""{"numFiles":${snapshot.numFiles},"sizeInBytes":${snapshot.sizeInBytes},""" +
      s""""numTombstones":${snapshot.numTombstones}}"""

  /** Example: `PythonFacade.cache(snap)`. */
  def cache(snapshot: Snapshot): Snapshot = snapshot.cache()

  /** Example: `PythonFacade.unpersist(snap)`. */
  def unpersist(snapshot: Snapshot): Unit = snapshot.unpersist()

  /** Everything about a snapshot that lives on the driver, as one JSON document: version,
    * timestamp, checkpointVersion, protocol, metadata, tableProperties, setTransactions,
    * domainMetadata, and fileCounts (as [[fileCounts]] gives them) when counting runs no job, else
    * null; long text comes in parts (see [[PythonText]]). Example:
    * `json.loads(call_text(PythonFacade.describe, snap))`.
    */
  def describe(snapshot: Snapshot): AnyRef = {
    val p = snapshot.protocol
    val m = snapshot.metadata
    val doc: Map[String, Any] = Map(
      "tablePath" -> snapshot.tablePath,
      "version" -> snapshot.version,
      "timestamp" -> snapshot.timestamp,
      "checkpointVersion" -> snapshot.checkpointVersion.map(Long.box).orNull,
      "protocol" -> Map(
        "minReaderVersion" -> p.minReaderVersion,
        "minWriterVersion" -> p.minWriterVersion,
        "readerFeatures" -> p.readerFeatures.map(_.toSeq.sorted.asJava).orNull,
        "writerFeatures" -> p.writerFeatures.map(_.toSeq.sorted.asJava).orNull
      ).asJava,
      "metadata" -> Map(
        "id" -> m.id,
        "name" -> m.name.orNull,
        "description" -> m.description.orNull,
        "format" -> Map("provider" -> m.formatProvider, "options" -> m.formatOptions.asJava).asJava,
        "schemaString" -> m.schemaString,
        "partitionColumns" -> m.partitionColumns.asJava,
        "configuration" -> m.configuration.asJava,
        "createdTime" -> m.createdTime.map(Long.box).orNull
      ).asJava,
      "tableProperties" -> snapshot.tableProperties.asJava,
      "setTransactions" -> snapshot.setTransactions.asJava,
      "domainMetadata" -> snapshot.domainMetadata.asJava,
      // as fileCounts gives them, when counting runs no job: one call opens a small table
      "fileCounts" -> snapshot.countsWithoutJob.map { c =>
        Map[String, Any](
          "numFiles" -> c.files,
          "sizeInBytes" -> c.bytes,
          "numTombstones" -> c.tombstones
        ).asJava
      }.orNull
    )
    text(doc.asJava)
  }

  /** Writes a checkpoint. Options: `version`, `kind` and the kind's own options (`parts`, `format`,
    * `sidecars`); returns what was written as JSON (in parts when long, see [[PythonText]]).
    * Example: `call_text(PythonFacade.checkpoint, log, {"kind": "multipart", "parts": "3"})`.
    */
  def checkpoint(log: DeltaLog, options: JMap[String, String]): AnyRef = {
    val o = Option(options).map(_.asScala.toMap).getOrElse(Map.empty)
    val version = o.get("version").map(wholeNumber("version", _))
    val r = log.checkpoint(version, o.get("kind"), o -- Seq("version", "kind"))
    text(Summarized.javaMap(r.summaryFields))
  }

  // Version checksums.

  /** Writes the version checksum of `version` (a whole number), or of the latest version when it is
    * null, and returns the file's path. Example: `PythonFacade.writeChecksum(log, "3")`.
    */
  def writeChecksum(log: DeltaLog, version: String): String =
    Option(version).fold(log.writeChecksum())(v => log.writeChecksum(wholeNumber("version", v)))

  /** The mismatches (version, field, expected, actual) between the version checksum of `version`
    * (latest when null) and a replay; empty when valid. Example:
    * `PythonFacade.validateChecksum(jspark, log, "3").count()`.
    */
  def validateChecksum(spark: SparkSession, log: DeltaLog, version: String): DataFrame = {
    val result =
      Option(version).fold(log.validateChecksum())(v =>
        log.validateChecksum(wholeNumber("version", v))
      )
    result.toDF(spark)
  }

  // ---- Log hygiene: log compaction and metadata cleanup ----

  /** Writes the log compaction of commits `start` to `end` (whole numbers as text) and returns its
    * path; see `DeltaLog.compact`. Example: `PythonFacade.compact(log, "0", "9")`.
    */
  def compact(log: DeltaLog, start: String, end: String): String =
    log.compact(wholeNumber("start", start), wholeNumber("end", end))

  /** Metadata cleanup by options: `retention` (a duration such as "30 days"; default the table's
    * delta.logRetentionDuration) and `dryRun` ("true", the default, or "false"); see
    * `DeltaLog.cleanup`. Example: `PythonFacade.cleanup(log, {"retention": "7 days"})`.
    */
  def cleanup(log: DeltaLog, options: JMap[String, String]): DataFrame = {
    val o = Option(options).map(_.asScala.toMap).getOrElse(Map.empty)
    val dryRun = flag(o, "dryRun", default = true)
    log.cleanup(o.get("retention"), dryRun, flag(o, "force", default = false))
  }

  // ---- VACUUM ----

  /** VACUUM by options: `retentionHours` (a number of hours as text; default the table's), `dryRun`
    * ("true", the default, or "false"), `lite`, `force` and `allowUnrelatedPaths` ("false" by
    * default); see `DeltaLog.vacuum`. Example: `PythonFacade.vacuum(log, {"retentionHours":
    * "168"})`.
    */
  def vacuum(log: DeltaLog, options: JMap[String, String]): VacuumResult = {
    val o = asScala(options)
    val hours = OptionValues.nonNegativeNumber(o, "retentionHours")
    log.vacuum(
      hours,
      flag(o, "dryRun", default = true),
      flag(o, "lite", default = false),
      flag(o, "force", default = false),
      flag(o, "allowUnrelatedPaths", default = false)
    )
  }

  /** A vacuum's numbers as JSON, named as the command line's (`mode`, `num_files`, `size_in_bytes`,
    * ...) after `table_path` and `dry_run`. Example: `json.loads(PythonFacade.vacuumSummary(r))`.
    */
  def vacuumSummary(result: VacuumResult): String = {
    Summarized.json(VacuumResult.Summary.facadeValues(result))
  }

  // ---- RESTORE ----

  /** RESTORE by options: `version` (an integer as text) or `timestamp`, exactly one; `force` and
    * `dryRun` ("false" by default); see `DeltaLog.restore`. Returns the result as JSON, named as
    * the command line's (`restored_version`, `version`, `num_restored_files`, ...) after
    * `table_path` and `dry_run`. Example: `json.loads(PythonFacade.restore(log, {"version":
    * "3"}))`.
    */
  def restore(log: DeltaLog, options: JMap[String, String]): String = {
    val o = asScala(options)
    val version = OptionValues.wholeNumber(o, "version")
    val r = log.restore(
      version,
      o.get("timestamp"),
      flag(o, "force", default = false),
      flag(o, "dryRun", default = false)
    )
    Summarized.json(RestoreResult.Summary.facadeValues(r))
  }

  /** `DeltaLog.repair`: options `dryRun` ("true" by default). Example: `PythonFacade.repair(log,
    * {"dryRun": "false"})`.
    */
  def repair(log: DeltaLog, options: JMap[String, String]): RepairResult = {
    val o = asScala(options)
    log.repair(
      flag(o, "dryRun", default = true),
      flag(o, "force", default = false),
      flag(o, "removeFilesWithMissingDv", default = false)
    )
  }

  /** A repair's numbers as JSON, named as the command line's (`num_files_removed`, ...) after
    * `table_path` and `dry_run`. Example: `json.loads(PythonFacade.repairSummary(r))`.
    */
  def repairSummary(result: RepairResult): String = {
    Summarized.json(RepairResult.Summary.facadeValues(result))
  }

  /** The actions of a repair. Example: `PythonFacade.repairActions(r)`. */
  def repairActions(result: RepairResult): DataFrame = result.actions

  /** Example: `PythonFacade.unpersistRepair(r)`. */
  def unpersistRepair(result: RepairResult): Unit = result.unpersist()

  /** The files of a vacuum (path, size, isDirectory, deleted). Example:
    * `PythonFacade.vacuumFiles(r)`.
    */
  def vacuumFiles(result: VacuumResult): DataFrame = result.files

  /** Example: `PythonFacade.unpersistVacuum(r)`. */
  def unpersistVacuum(result: VacuumResult): Unit = result.unpersist()

  private def flag(o: Map[String, String], name: String, default: Boolean): Boolean =
    OptionValues.flag(o, name, default)

  // ---- Maintenance: describe, validate and the command line ----

  /** `DeltaLog.describe()` as one JSON document (DESCRIBE DETAIL's fields and `health`), the same
    * the command line prints (in parts when long, see [[PythonText]]). Example:
    * `json.loads(call_text(PythonFacade.describeTable, log))`.
    */
  def describeTable(log: DeltaLog): AnyRef = text(Summarized.javaMap(log.describe().summaryFields))

  /** `DeltaLog.validate()`: the findings (version, file, rule, severity, detail). Example:
    * `PythonFacade.validate(log).count()`.
    */
  def validate(log: DeltaLog): DataFrame = log.validate()

  /** Runs the maintenance command line (`txlog.cli.Main`) on the session with `argv` given as a
    * JSON array of strings; results go to the JVM's stdout, progress to its stderr. Returns the
    * exit code. Example: `PythonFacade.cli(jspark, '["describe", "--table", "/data/t"]')`.
    */
  def cli(spark: SparkSession, argv: String): Int = {
    val node = mapper.readTree(Option(argv).getOrElse("[]"))
    if (node == null || !node.isArray) {
      throw TxlogErrors.invalidArgument("argv", "must be a JSON array of strings")
    }
    val args = (0 until node.size).map(i => node.get(i).asText)
    txlog.cli.Main.run(spark, args, System.out, System.err)
  }
}
