package txlog.sql

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{
  MetadataColumn,
  SupportsDeleteV2,
  SupportsMetadataColumns,
  SupportsRead,
  SupportsRowLevelOperations,
  SupportsWrite,
  Table,
  TableCapability,
  TableCatalog
}
import org.apache.spark.sql.connector.expressions.{Expressions, Transform}
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{
  LogicalWriteInfo,
  RowLevelOperation,
  RowLevelOperationBuilder,
  RowLevelOperationInfo,
  WriteBuilder
}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import txlog.{DeltaLog, Metadata, Snapshot}
import txlog.errors.TxlogErrors

/** A Delta table at one snapshot as a Spark table: its schema, partition columns and properties;
  * reads through [[SnapshotScanBuilder]], writes through [[TableWriteBuilder]] (each a commit); the
  * metadata column `_metadata` ([[FileMetadata]]) and those of row-level operations
  * ([[RowLevelColumns]]). `DELETE FROM`: by filters when the condition names partition columns only
  * (whole files removed, `DeltaLog.delete`), else by deletion vectors, or copy-on-write on tables
  * without them ([[RowLevelDv]]). With a `capture` (`DeltaLog.update` / `merge`), the commit of an
  * UPDATE or MERGE is handed to it. With `evolved` (a MERGE's schema evolution,
  * [[MergeEvolution]]), the table is the snapshot under that metadata: its new columns read as null
  * and are written by the statement, whose commit adds the metadata. Streams by name read the table
  * at its location as by path (`txlog.streaming.StreamScan`); streaming writes by name go to the
  * `txlog` source's sink there ([[org.apache.spark.sql.txlog.StreamingFallback]]).
  */
private[txlog] final class TxlogTable(
    tableName: String,
    val snapshot: Snapshot,
    capture: Option[DmlCapture] = None,
    evolved: Option[Metadata] = None
) extends Table
    with SupportsRead
    with SupportsWrite
    with SupportsMetadataColumns
    with SupportsDeleteV2
    with SupportsRowLevelOperations
    with org.apache.spark.sql.txlog.StreamingFallback {

  override def name(): String = tableName

  // streaming writes by name: the txlog source's sink at the table's location
  override protected def fallbackLocation: String = snapshot.tablePath

  /** The metadata the table is seen under: the snapshot's, or the one a MERGE evolves it to. */
  private[txlog] def metadata: Metadata = evolved.getOrElse(snapshot.metadata)

  /** This table under `md` (a MERGE's evolved schema). */
  private[sql] def evolvedTo(md: Metadata): TxlogTable =
    new TxlogTable(tableName, snapshot, capture, Some(md))

  override def schema(): StructType = metadata.schema

  override def partitioning(): Array[Transform] =
    TxlogTable.partitioning(metadata.partitionColumns)

  override def properties(): util.Map[String, String] =
    (metadata.configuration ++ Map(
      TableCatalog.PROP_PROVIDER -> TxlogTable.Provider,
      TableCatalog.PROP_LOCATION -> snapshot.tablePath
    ) ++ metadata.description.map(TableCatalog.PROP_COMMENT -> _)).asJava

  override def capabilities(): util.Set[TableCapability] = Set(
    TableCapability.BATCH_READ,
    TableCapability.MICRO_BATCH_READ,
    TableCapability.V1_BATCH_WRITE,
    TableCapability.TRUNCATE,
    TableCapability.OVERWRITE_BY_FILTER
  ).asJava

  /** A batch read (no options: INVALID_ARGUMENT when it is planned), or a stream of the table at
    * its location (`spark.readStream.table(name)`, the options of `txlog.streaming.StreamOptions`).
    */
  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder =
    new SnapshotScanBuilder(snapshot, metadata.schema, options.asCaseSensitiveMap().asScala.toMap)

  // a MERGE's evolved schema: its append adds the new columns as a mergeSchema write does
  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder =
    new TableWriteBuilder(
      snapshot.tablePath,
      snapshot.metadata.schema,
      info,
      capture,
      mergeSchema = evolved.isDefined
    )

  /** `_metadata`, unless the table has a column of that name.
    *
    * {{{
    * spark.sql("SELECT id, _metadata.file_path, _metadata.row_index FROM txlog.db.events")
    * }}}
    */
  override def metadataColumns(): Array[MetadataColumn] =
    (FileMetadata.column(snapshot).toSeq ++
      RowLevelColumns.columns(metadata.schema, snapshot.config.rowTracking)).toArray

  /** Whether every one of `predicates` (a DELETE's condition, as Spark 3.4 and later hand it) is,
    * node by node, a condition on partition columns with a SQL form ([[PredicateSql]]): then
    * [[deleteWhere(predicates:* deleteWhere]] removes whole files. Any other condition, including
    * one of which Spark's conversion to filters would keep a part only, runs as a row-level DELETE.
    */
  override def canDeleteWhere(predicates: Array[Predicate]): Boolean =
    predicates.nonEmpty && partitionSql(predicates).isDefined

  /** Deletes the partitions `predicates` select, as `DeltaLog.delete` (one `DELETE` commit).
    *
    * {{{
    * spark.sql("DELETE FROM txlog.db.events WHERE date < '2024-01-01'")
    * }}}
    */
  override def deleteWhere(predicates: Array[Predicate]): Unit = {
    val sql = partitionSql(predicates).getOrElse {
      throw TxlogErrors.invalidArgument(
        "DELETE",
        s"no SQL form on partition columns for ${predicates.mkString(", ")}"
      )
    }
    DeltaLog.forTable(snapshot.spark, snapshot.tablePath).delete(sql)
    ()
  }

  private def partitionSql(predicates: Array[Predicate]): Option[String] = {
    val parts = snapshot.metadata.partitionColumns.toSet
    val each = predicates.toSeq.map(PredicateSql.of(_, parts))
    if (each.forall(_.isDefined)) Some(each.flatten.mkString(" AND ")) else None
  }

  /** DELETE, UPDATE and MERGE by deletion vectors or copy-on-write ([[RowLevelDv]]). */
  override def newRowLevelOperationBuilder(
      info: RowLevelOperationInfo
  ): RowLevelOperationBuilder = {
    val clash = RowLevelColumns.clash(metadata.schema)
    info.command() match {
      case c if clash.isEmpty => RowLevelDv.builder(name(), snapshot, c, capture, evolved)
      case _ =>
        throw TxlogErrors.unsupportedWriteFeature(
          snapshot.tablePath,
          s"row-level operations on a table with a column named ${clash.mkString(", ")}"
        )
    }
  }
}

private[txlog] object TxlogTable {

  /** The provider name of txlog tables in a catalog. */
  val Provider = "txlog"

  def partitioning(columns: Seq[String]): Array[Transform] =
    columns.map(c => Expressions.identity(s"`${c.replace("`", "``")}`"): Transform).toArray

  /** The partition columns of `transforms`; any transform but identity is INVALID_ARGUMENT. */
  def partitionColumns(transforms: Array[Transform]): Seq[String] = transforms.toSeq.map { t =>
    val refs = t.references()
    if (t.name() != "identity" || refs.length != 1 || refs(0).fieldNames().length != 1) {
      throw TxlogErrors.invalidArgument(
        "PARTITIONED BY",
        s"txlog tables are partitioned by top-level columns only, not by ${t.describe()}."
      )
    }
    refs(0).fieldNames()(0)
  }

  def refuseOptions(options: CaseInsensitiveStringMap, why: String): Unit =
    if (!options.isEmpty) {
      throw TxlogErrors.invalidArgument(options.keySet().asScala.toSeq.sorted.mkString(", "), why)
    }
}
