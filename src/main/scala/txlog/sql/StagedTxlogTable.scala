package txlog.sql

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.connector.catalog.{StagedTable, SupportsWrite, TableCapability}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.connector.write.{
  LogicalWriteInfo,
  SupportsTruncate,
  Write,
  WriteBuilder
}
import org.apache.spark.sql.types.StructType

import txlog.{DeltaLog, WriteOptions}

/** A table of `CREATE TABLE ... AS SELECT`, `REPLACE TABLE` or `CREATE OR REPLACE TABLE` before
  * Spark commits it: the rows written and the new schema, partitioning and properties are one Delta
  * commit (`DeltaLog.write` in mode `error`, or `overwrite` with the schema overwritten), made when
  * Spark writes them, or at `commitStagedChanges` when there are no rows; then `register` records a
  * new table in the catalog. Nothing is committed before the write, so an abort has nothing to
  * undo.
  */
private[txlog] final class StagedTxlogTable(
    spark: SparkSession,
    tableName: String,
    spec: CreateSpec,
    replace: Boolean,
    register: () => Unit
) extends StagedTable
    with SupportsWrite {

  private var written = false

  override def name(): String = tableName
  override def schema(): StructType = spec.schema
  override def partitioning(): Array[Transform] = TxlogTable.partitioning(spec.partitionBy)
  override def properties(): util.Map[String, String] = spec.properties.asJava
  override def capabilities(): util.Set[TableCapability] =
    Set(TableCapability.V1_BATCH_WRITE, TableCapability.TRUNCATE).asJava

  private def options(base: WriteOptions): WriteOptions =
    if (replace) {
      WriteOptions(
        mode = "overwrite",
        partitionBy = spec.partitionBy,
        mergeSchema = base.mergeSchema,
        overwriteSchema = true
      )
    } else {
      WriteOptions(
        mode = "error",
        partitionBy = spec.partitionBy,
        properties = spec.properties,
        mergeSchema = base.mergeSchema
      )
    }

  // A replacing write reaches Spark as an overwrite of every row: it is the replace itself.
  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = new SupportsTruncate {
    override def truncate(): WriteBuilder = this
    override def build(): Write = {
      val opts = options(TableWriteBuilder.options(info))
      TableWriteBuilder.write(spec.location, opts, _ => written = true)
    }
  }

  override def commitStagedChanges(): Unit = {
    if (!written) {
      if (replace) {
        val empty = spark.createDataFrame(util.Collections.emptyList[Row](), spec.schema)
        DeltaLog.write(empty, spec.location, options(WriteOptions()))
      } else {
        DeltaLog.createTable(spark, spec.location, spec.schema, spec.partitionBy, spec.properties)
      }
    }
    register()
  }

  override def abortStagedChanges(): Unit = ()
}
