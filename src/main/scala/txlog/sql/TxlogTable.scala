package txlog.sql

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{
  MetadataColumn,
  SupportsMetadataColumns,
  SupportsRead,
  SupportsWrite,
  Table,
  TableCapability,
  TableCatalog
}
import org.apache.spark.sql.connector.expressions.{Expressions, Transform}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import txlog.Snapshot
import txlog.errors.TxlogErrors

/** A Delta table at one snapshot as a Spark table: its schema, partition columns and properties;
  * reads through [[SnapshotScanBuilder]], writes through [[TableWriteBuilder]] (each a commit); the
  * metadata column `_metadata` ([[FileMetadata]]).
  */
private[txlog] final class TxlogTable(tableName: String, val snapshot: Snapshot)
    extends Table
    with SupportsRead
    with SupportsWrite
    with SupportsMetadataColumns {

  override def name(): String = tableName

  override def schema(): StructType = snapshot.metadata.schema

  override def partitioning(): Array[Transform] =
    TxlogTable.partitioning(snapshot.metadata.partitionColumns)

  override def properties(): util.Map[String, String] =
    (snapshot.metadata.configuration ++ Map(
      TableCatalog.PROP_PROVIDER -> TxlogTable.Provider,
      TableCatalog.PROP_LOCATION -> snapshot.tablePath
    ) ++ snapshot.metadata.description.map(TableCatalog.PROP_COMMENT -> _)).asJava

  override def capabilities(): util.Set[TableCapability] = Set(
    TableCapability.BATCH_READ,
    TableCapability.V1_BATCH_WRITE,
    TableCapability.TRUNCATE,
    TableCapability.OVERWRITE_BY_FILTER
  ).asJava

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    TxlogTable.refuseOptions(options, "a read of a txlog table by name takes no options")
    new SnapshotScanBuilder(snapshot)
  }

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder =
    new TableWriteBuilder(snapshot.tablePath, info)

  /** `_metadata`, unless the table has a column of that name.
    *
    * {{{
    * spark.sql("SELECT id, _metadata.file_path, _metadata.row_index FROM txlog.db.events")
    * }}}
    */
  override def metadataColumns(): Array[MetadataColumn] =
    FileMetadata.column(snapshot).toArray
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
