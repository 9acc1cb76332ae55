package txlog

import java.util.{Collections, Map => JMap, Set => JSet}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, SQLContext, SaveMode, SparkSession}

import org.apache.spark.sql.connector.catalog.{
  SupportsRead,
  Table,
  TableCapability,
  TableCatalog,
  TableProvider
}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.apache.spark.sql.execution.streaming.{Sink, Source}
import org.apache.spark.sql.sources.{
  BaseRelation,
  CreatableRelationProvider,
  DataSourceRegister,
  RelationProvider,
  StreamSinkProvider,
  StreamSourceProvider
}
import org.apache.spark.sql.streaming.OutputMode

import txlog.timetravel.VersionOrTimestamp
import txlog.scan.TableScan
import txlog.errors.TxlogErrors

/** The `txlog` data source: a Delta table's rows at its latest version, or at the version or time
  * the `versionAsOf` / `timestampAsOf` options name (as delta-spark's options do), read through
  * txlog's log replay. Registered under the short name `txlog`.
  *
  * {{{
  * val latest = spark.read.format("txlog").load("/data/events")
  * val v3 = spark.read.format("txlog").option("versionAsOf", 3).load("/data/events")
  * val then = spark.read.format("txlog").option("timestampAsOf", "2024-06-01").load(path)
  * val changes = spark.read.format("txlog").option("readChangeFeed", "true")
  *   .option("startingVersion", 2).option("endingVersion", 5).load("/data/events")
  * }}}
  *
  * With `readChangeFeed` = true the relation is the change data feed (`DeltaLog.changes`) from
  * `startingVersion` or `startingTimestamp` to `endingVersion` or `endingTimestamp` (default: the
  * latest version), as delta-spark's options of the same names.
  *
  * Writing (`df.write.format("txlog")`) is `DeltaLog.write`: the save mode is its mode,
  * `partitionBy` its partition columns, `replaceWhere` its predicate, the options `txnAppId` and
  * `txnVersion` its application transaction, `mergeSchema` and `overwriteSchema` (`true` or
  * `false`) its schema evolution, and options named `delta.*` the table properties of a new table.
  *
  * {{{
  * df.write.format("txlog").mode("append").partitionBy("date").save("/data/events")
  * wider.write.format("txlog").mode("append").option("mergeSchema", "true").save("/data/events")
  * }}}
  */
final class TxlogSource
    extends DataSourceRegister
    with RelationProvider
    with CreatableRelationProvider
    with TableProvider
    with TxlogStreams {

  /** The name `spark.read.format` takes. Example: `spark.read.format("txlog")`. */
  override def shortName(): String = "txlog"

  /** No schema is read here: see [[getTable]]. Example: `inferSchema(options)` is empty. */
  override def inferSchema(
      options: CaseInsensitiveStringMap
  ): StructType = new StructType()

  /** A user's schema is passed on to the V1 relation as before. Example: always true. */
  override def supportsExternalMetadata(): Boolean = true

  /** A table that streams only: batch reads and writes by path (`format("txlog")`) fall back to the
    * relations below, as Spark does for a V2 provider whose table cannot read or write batches;
    * `spark.readStream.format("txlog")` is its DSv2 micro-batch stream
    * ([[txlog.streaming.StreamScan]]: the table's rows, or with `readChangeFeed` its change data
    * feed, with the options of `txlog.streaming.StreamOptions`). txlog is a V2 provider so that
    * `CREATE TABLE ... USING txlog` in the session catalog reaches [[txlog.sql.TxlogCatalog]]
    * (Spark sends a V1 provider's to its own V1 command). Example: `getTable(schema, Array.empty,
    * props).capabilities()` is MICRO_BATCH_READ.
    *
    * {{{
    * spark.readStream.format("txlog").option("maxFilesPerTrigger", 100).load("/data/events")
    * }}}
    */
  override def getTable(
      schema: StructType,
      partitioning: Array[Transform],
      properties: JMap[String, String]
  ): Table = new TxlogSource.PathTable(schema, properties)

  /** The relation over the snapshot the options name; an option txlog does not know, or both a
    * version and a timestamp, is INVALID_ARGUMENT before anything is read.
    *
    * {{{
    * new TxlogSource().createRelation(spark.sqlContext, Map("path" -> "/data/events"))
    * }}}
    */
  override def createRelation(
      sqlContext: SQLContext,
      parameters: Map[String, String]
  ): BaseRelation = {
    val spark = sqlContext.sparkSession
    val options = TxlogSource.Options(parameters)
    val log = DeltaLog.forTable(spark, options.path)
    options.changes match {
      case Some(range) => txlog.changes.ChangeFeed.relation(log.context, range)
      case None        => TableScan.relation(options.snapshot(log))
    }
  }

  /** Writes `data` with `DeltaLog.write` (see above) and returns the relation of the version
    * written.
    *
    * {{{
    * df.write.format("txlog").mode("overwrite").save("/data/events")
    * }}}
    */
  override def createRelation(
      sqlContext: SQLContext,
      mode: SaveMode,
      parameters: Map[String, String],
      data: DataFrame
  ): BaseRelation =
    TableScan.relation(TxlogSource.write(sqlContext, mode, parameters, data).snapshot())
}

/** Streams: `df.writeStream.format("txlog")` (a V1 sink), and what Spark's V1 stream source API
  * asks of a provider whose tables also stream by DSv2 (reads by name look up a V1 entry of the
  * table beside it): the stream's schema. The reads themselves are DSv2 streams
  * ([[txlog.streaming.StreamScan]]).
  */
private[txlog] trait TxlogStreams extends StreamSourceProvider with StreamSinkProvider {

  /** The schema given (a table's by name), else the table's at its latest version (the change data
    * feed's with `readChangeFeed`). A schema given is checked when the query starts, by the DSv2
    * stream (SCHEMA_MISMATCH).
    *
    * {{{
    * spark.readStream.format("txlog").load("/data/events").schema
    * }}}
    */
  override def sourceSchema(
      sqlContext: SQLContext,
      schema: Option[StructType],
      providerName: String,
      parameters: Map[String, String]
  ): (String, StructType) =
    providerName -> schema.filter(_.nonEmpty).getOrElse {
      txlog.streaming.StreamScan.schema(sqlContext.sparkSession, parameters)
    }

  /** Never used while Spark reads txlog's streams by DSv2, its default: INVALID_ARGUMENT when
    * `spark.sql.streaming.disabledV2MicroBatchReaders` names txlog's source.
    */
  override def createSource(
      sqlContext: SQLContext,
      metadataPath: String,
      schema: Option[StructType],
      providerName: String,
      parameters: Map[String, String]
  ): Source =
    throw TxlogErrors.invalidArgument(
      "spark.sql.streaming.disabledV2MicroBatchReaders",
      s"txlog's streams are DSv2 micro-batch streams only: remove ${classOf[TxlogSource].getName} " +
        "from that setting."
    )

  /** The streaming sink ([[txlog.streaming.TableSink]]): each micro-batch one commit, exactly once
    * by the query's id and the batch's.
    *
    * {{{
    * df.writeStream.format("txlog").option("checkpointLocation", "/chk").start("/data/events")
    * }}}
    */
  override def createSink(
      sqlContext: SQLContext,
      parameters: Map[String, String],
      partitionColumns: Seq[String],
      outputMode: OutputMode
  ): Sink = txlog.streaming.TableSink(parameters, partitionColumns, outputMode)
}

private[txlog] object TxlogSource {

  /** See [[TxlogSource.getTable]]. Spark's built-in catalog hands a `txlog` entry's options here
    * (its location as `path`): the properties name the provider and the location, so that
    * [[txlog.sql.TxlogCatalog]] knows the entry for a txlog table, as from a V1 entry.
    */
  private final class PathTable(tableSchema: StructType, options: JMap[String, String])
      extends Table
      with SupportsRead {
    override def name(): String = "txlog"

    // the stream's columns when no schema is given (a stream read by path: the table's latest)
    private lazy val streamSchema =
      txlog.streaming.StreamScan.schema(SparkSession.active, options.asScala.toMap)

    override def schema(): StructType = if (tableSchema.nonEmpty) tableSchema else streamSchema

    override def capabilities(): JSet[TableCapability] =
      Collections.singleton(TableCapability.MICRO_BATCH_READ)

    override def newScanBuilder(scanOptions: CaseInsensitiveStringMap): ScanBuilder =
      new txlog.streaming.StreamScan(
        SparkSession.active,
        scanOptions.asCaseSensitiveMap().asScala.toMap,
        schema()
      )

    override def properties(): JMap[String, String] = {
      val props = new java.util.HashMap[String, String](options)
      props.put(TableCatalog.PROP_PROVIDER, "txlog")
      Option(options.get("path")).foreach(props.put(TableCatalog.PROP_LOCATION, _))
      props
    }
  }

  /** `DeltaLog.write` by the options of `df.write.format("txlog")`: an option it does not know is
    * INVALID_ARGUMENT before anything is written.
    */
  def write(
      sqlContext: SQLContext,
      mode: SaveMode,
      parameters: Map[String, String],
      data: DataFrame
  ): DeltaLog = {
    val byName = parameters.map { case (k, v) => k.toLowerCase -> v }
    val known =
      Set(Path, "__partition_columns", "replacewhere", "txnappid", "txnversion") ++
        Set("mergeschema", "overwriteschema", "partitionoverwritemode")
    byName.keys.filterNot(k => known(k) || k.startsWith("delta.")).toSeq.sorted.headOption.foreach {
      k => throw TxlogErrors.invalidArgument(k, "unknown option of the txlog data source's writer")
    }
    val path =
      byName.getOrElse(Path.toLowerCase, throw TxlogErrors.invalidArgument("path", "is missing"))
    val parts = byName.get("__partition_columns").toSeq.flatMap { json =>
      val node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json)
      (0 until node.size).map(i => node.get(i).asText)
    }
    val txnVersion =
      byName.get("txnversion").map(v => util.OptionValues.wholeNumber("txnVersion", v))
    // named as the user spells them in an error (Spark hands them over lower-cased)
    def flag(name: String) = util.OptionValues.flag(
      byName.get(name.toLowerCase).map(name -> _).toMap,
      name,
      default = false
    )
    val (mergeSchema, overwriteSchema) = (flag("mergeSchema"), flag("overwriteSchema"))
    val writeMode = mode match {
      case SaveMode.Append        => "append"
      case SaveMode.Overwrite     => "overwrite"
      case SaveMode.ErrorIfExists => "error"
      case SaveMode.Ignore        => "ignore"
    }
    // Spark hands the options over case-insensitively, keys lower-cased: properties keep their case
    val original = parameters match {
      case c: org.apache.spark.sql.catalyst.util.CaseInsensitiveMap[String @unchecked] =>
        c.originalMap
      case other => other
    }
    val properties = original.filter { case (k, _) => k.toLowerCase.startsWith("delta.") }
    // delta-spark's partitionOverwriteMode: the option, else the session's setting
    val dynamic = txlog.write.DynamicPartitions.dynamic(
      sqlContext.sparkSession,
      byName.get("partitionoverwritemode"),
      byName.contains("replacewhere") || overwriteSchema
    )
    val log = DeltaLog.forTable(sqlContext.sparkSession, path)
    txlog.write.DataFrameWrite.write(
      log.context,
      data,
      WriteOptions(
        mode = writeMode,
        partitionBy = parts,
        properties = properties,
        replaceWhere = byName.get("replacewhere"),
        txnAppId = byName.get("txnappid"),
        txnVersion = txnVersion,
        mergeSchema = mergeSchema,
        overwriteSchema = overwriteSchema
      ),
      dynamic
    )
    log
  }

  val Path = "path"
  val VersionAsOf = "versionAsOf"
  val TimestampAsOf = "timestampAsOf"
  val ReadChangeFeed = "readChangeFeed"
  val StartingVersion = "startingVersion"
  val EndingVersion = "endingVersion"
  val StartingTimestamp = "startingTimestamp"
  val EndingTimestamp = "endingTimestamp"
  val ChangeOptions: Seq[String] =
    Seq(StartingVersion, EndingVersion, StartingTimestamp, EndingTimestamp)
  val Known: Seq[String] = Seq(Path, VersionAsOf, TimestampAsOf, ReadChangeFeed) ++ ChangeOptions

  /** The options of one read, checked: names are matched case-insensitively, as Spark does. */
  final case class Options(
      path: String,
      version: Option[Long],
      timestamp: Option[String],
      changes: Option[txlog.changes.ChangeRange] = None
  ) {
    def snapshot(log: DeltaLog): Snapshot = (version, timestamp) match {
      case (Some(v), _) => log.snapshot(v)
      case (_, Some(t)) => log.snapshotAsOf(t)
      case _            => log.snapshot()
    }
  }

  object Options {
    def apply(parameters: Map[String, String]): Options = {
      val byName = parameters.map { case (k, v) => k.toLowerCase -> v }
      val unknown = parameters.keys.filterNot(k => Known.exists(_.equalsIgnoreCase(k)))
      if (unknown.nonEmpty) {
        throw TxlogErrors.invalidArgument(
          unknown.toSeq.sorted.mkString(", "),
          s"the txlog source does not know this option; it takes ${Known.mkString(", ")}."
        )
      }
      val path = byName.getOrElse(
        Path.toLowerCase,
        throw TxlogErrors.invalidArgument(Path, "give the table's path: load(path).")
      )
      def versionOf(name: String) = byName.get(name.toLowerCase).map { v =>
        scala.util
          .Try(v.trim.toLong)
          .toOption
          .filter(_ >= 0)
          .getOrElse(throw TxlogErrors.invalidArgument(name, s"'$v' is not a table version."))
      }
      val version = versionOf(VersionAsOf)
      val timestamp = byName.get(TimestampAsOf.toLowerCase)
      VersionOrTimestamp.of(VersionAsOf, version, TimestampAsOf, timestamp)
      val readChanges = byName.get(ReadChangeFeed.toLowerCase).map(_.trim.toLowerCase) match {
        case None | Some("false") => false
        case Some("true")         => true
        case Some(other) =>
          throw TxlogErrors.invalidArgument(ReadChangeFeed, s"'$other' is not true or false.")
      }
      val changeOpts = ChangeOptions.filter(o => byName.contains(o.toLowerCase))
      if (!readChanges && changeOpts.nonEmpty) {
        throw TxlogErrors.invalidArgument(
          changeOpts.mkString(", "),
          s"these options read the change data feed: set $ReadChangeFeed to true."
        )
      }
      if (readChanges && (version.isDefined || timestamp.isDefined)) {
        throw TxlogErrors.invalidArgument(
          s"$ReadChangeFeed, $VersionAsOf, $TimestampAsOf",
          "the change data feed reads a range of versions: give startingVersion or " +
            "startingTimestamp (and optionally an ending one) instead of time travel."
        )
      }
      def oneOf(v: String, t: String): Option[Either[Long, String]] =
        VersionOrTimestamp.of(v, versionOf(v), t, byName.get(t.toLowerCase))
      val changes =
        if (!readChanges) None
        else {
          val start = oneOf(StartingVersion, StartingTimestamp).getOrElse(
            throw TxlogErrors.invalidArgument(
              StartingVersion,
              s"reading the change data feed needs $StartingVersion or $StartingTimestamp."
            )
          )
          Some(txlog.changes.ChangeRange(start, oneOf(EndingVersion, EndingTimestamp)))
        }
      Options(path, version, timestamp, changes)
    }
  }
}
