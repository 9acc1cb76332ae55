package txlog.checkpoint

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{Column, DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.StructType

import txlog.{Metadata, Protocol, Snapshot}
import txlog.protocol.ActionSchemas
import txlog.protocol.FileColumns

/** The rows of a checkpoint of a snapshot ("Checkpoints", "Checkpoint Schema"): one action per row,
  * each in its own struct column. No commitInfo or cdc; removes only until they expire (and without
  * stats or tags); adds with `stats` when `delta.checkpoint.writeStatsAsJson` and with
  * `stats_parsed` / `partitionValues_parsed` (physical names) when
  * `delta.checkpoint.writeStatsAsStruct`.
  *
  * File rows stay a distributed DataFrame built from the snapshot's reconciled files; the few other
  * actions come from the driver.
  *
  * @param tombstoneCutoff
  *   removes deleted at or before this time (ms) are expired and left out
  */
private[txlog] final class CheckpointContent(
    spark: SparkSession,
    snapshot: Snapshot,
    val tombstoneCutoff: Long
) {
  private val md: Metadata = snapshot.metadata
  val statsAsJson: Boolean = snapshot.config.writeStatsAsJson
  val statsAsStruct: Boolean = snapshot.config.writeStatsAsStruct

  /** Transactions that are not expired per `delta.setTransactionRetentionDuration`. */
  val txns: Seq[txlog.replay.SetTransaction] = snapshot.liveTransactions

  val domains: Seq[txlog.replay.DomainMetadata] =
    snapshot.state.domains.values.toSeq.sortBy(_.domain)

  /** Whether a file row is live or an unexpired tombstone (null deletion times are expired). */
  val keepFile: Column = col("add").isNotNull || (col("remove").isNotNull &&
    coalesce(col("remove.deletionTimestamp"), lit(0L)) > lit(tombstoneCutoff))

  /** The add and remove rows, with columns `add` and `remove` shaped for a checkpoint, from
    * `source` (the snapshot's reconciled files, or its file actions as a local relation: any
    * DataFrame with their `add` and `remove` columns). `parquet` adds the typed columns the table
    * asks for (JSON checkpoints never carry them).
    */
  def fileRows(parquet: Boolean, source: => DataFrame = snapshot.reconciledFiles): DataFrame = {
    val a = (f: String) => col(s"add.$f").as(f)
    val addFields = Seq(
      a("path"),
      a("partitionValues"),
      a("size"),
      a("modificationTime"),
      lit(false).as("dataChange")
    ) ++
      (if (statsAsJson) Seq(a("stats")) else Nil) ++
      Seq(
        a("tags"),
        a("deletionVector"),
        a("baseRowId"),
        a("defaultRowCommitVersion"),
        a("clusteringProvider")
      ) ++
      (if (parquet && statsAsStruct && FileColumns.partitionFields(md).nonEmpty) {
         Seq(
           FileColumns
             .partitionValuesParsed(col("add.partitionValues"), md, physical = true)
             .as("partitionValues_parsed")
         )
       } else Nil) ++
      (if (parquet && statsAsStruct) {
         Seq(FileColumns.statsParsedPhysical(col("add.stats"), md).as("stats_parsed"))
       } else Nil)
    val r = (f: String) => col(s"remove.$f").as(f)
    val removeFields = Seq(
      r("path"),
      r("deletionTimestamp"),
      r("dataChange"),
      r("extendedFileMetadata"),
      r("partitionValues"),
      r("size"),
      r("deletionVector"),
      r("baseRowId"),
      r("defaultRowCommitVersion")
    )
    source
      .where(keepFile)
      .select(
        when(col("add").isNotNull, struct(addFields: _*)).as("add"),
        when(col("remove").isNotNull, struct(removeFields: _*)).as("remove")
      )
  }

  /** Protocol, metaData, txns and domain metadata (and checkpointMetadata for V2), as rows. */
  def nonFileRows(v2Spec: Boolean): DataFrame = {
    val schema = CheckpointContent.nonFileSchema
    val none: Row = null
    def row(
        protocol: Row = none,
        metaData: Row = none,
        txn: Row = none,
        domain: Row = none,
        cpMeta: Row = none
    ): Row = Row(protocol, metaData, txn, domain, cpMeta)
    val rows = Seq(
      row(protocol = CheckpointContent.protocolRow(snapshot.protocol)),
      row(metaData = CheckpointContent.metadataRow(md))
    ) ++
      txns.map(t => row(txn = Row(t.appId, t.version, t.lastUpdated.map(Long.box).orNull))) ++
      domains.map(d => row(domain = Row(d.domain, d.configuration, false))) ++
      (if (v2Spec) Seq(row(cpMeta = Row(snapshot.version, Map.empty[String, String])))
       else Nil)
    spark.createDataFrame(rows.asJava, schema)
  }

  /** The number of non-file actions [[nonFileRows]] holds. */
  def numNonFileActions(v2Spec: Boolean): Long =
    2L + txns.size + domains.size + (if (v2Spec) 1 else 0)
}

private[txlog] object CheckpointContent {
  val nonFileSchema: StructType = new StructType()
    .add("protocol", ActionSchemas.protocol)
    .add("metaData", ActionSchemas.metaData)
    .add("txn", ActionSchemas.txn)
    .add("domainMetadata", ActionSchemas.domainMetadata)
    .add("checkpointMetadata", ActionSchemas.checkpointMetadata)

  /** Column order of written checkpoints (absent columns are skipped). */
  val columnOrder: Seq[String] = Seq(
    "checkpointMetadata",
    "protocol",
    "metaData",
    "txn",
    "domainMetadata",
    "add",
    "remove",
    "sidecar"
  )

  /** `parts` unioned by name (missing columns null) and put in [[columnOrder]]. */
  def union(parts: Seq[DataFrame]): DataFrame = {
    val all = parts.reduce(_.unionByName(_, allowMissingColumns = true))
    all.select(columnOrder.filter(all.columns.contains).map(col): _*)
  }

  /** The protocol row; with reader version 3 / writer version 7 the feature lists are never null
    * ("Checkpoint Schema" requires them).
    */
  def protocolRow(p: Protocol): Row = {
    def list(features: Option[Set[String]], required: Boolean): Seq[String] =
      features.map(_.toSeq.sorted).orElse(if (required) Some(Seq.empty) else None).orNull
    Row(
      p.minReaderVersion,
      p.minWriterVersion,
      list(p.readerFeatures, p.minReaderVersion == 3),
      list(p.writerFeatures, p.minWriterVersion == 7)
    )
  }

  def metadataRow(m: Metadata): Row = Row(
    m.id,
    m.name.orNull,
    m.description.orNull,
    Row(m.formatProvider, m.formatOptions),
    m.schemaString,
    m.partitionColumns,
    m.configuration,
    m.createdTime.map(Long.box).orNull
  )
}
