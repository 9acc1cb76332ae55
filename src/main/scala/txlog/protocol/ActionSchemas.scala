package txlog.protocol

import org.apache.spark.sql.types._

/** Explicit Spark schemas of the spec's actions ("Actions", "Checkpoint Schema"). Logs are always
  * read with these; fields and actions not named here are ignored, as the spec requires.
  */
private[txlog] object ActionSchemas {
  private val stringMap = MapType(StringType, StringType, valueContainsNull = true)

  val deletionVector: StructType = new StructType()
    .add("storageType", StringType)
    .add("pathOrInlineDv", StringType)
    .add("offset", IntegerType)
    .add("sizeInBytes", IntegerType)
    .add("cardinality", LongType)
    .add("maxRowIndex", LongType)

  val add: StructType = new StructType()
    .add("path", StringType)
    .add("partitionValues", stringMap)
    .add("size", LongType)
    .add("modificationTime", LongType)
    .add("dataChange", BooleanType)
    .add("stats", StringType)
    .add("tags", stringMap)
    .add("deletionVector", deletionVector)
    .add("baseRowId", LongType)
    .add("defaultRowCommitVersion", LongType)
    .add("clusteringProvider", StringType)

  val remove: StructType = new StructType()
    .add("path", StringType)
    .add("deletionTimestamp", LongType)
    .add("dataChange", BooleanType)
    .add("extendedFileMetadata", BooleanType)
    .add("partitionValues", stringMap)
    .add("size", LongType)
    .add("stats", StringType)
    .add("tags", stringMap)
    .add("deletionVector", deletionVector)
    .add("baseRowId", LongType)
    .add("defaultRowCommitVersion", LongType)

  /** "Add CDC File": a change data file of one commit. */
  val cdc: StructType = new StructType()
    .add("path", StringType)
    .add("partitionValues", stringMap)
    .add("size", LongType)
    .add("dataChange", BooleanType)
    .add("tags", stringMap)

  val metaData: StructType = new StructType()
    .add("id", StringType)
    .add("name", StringType)
    .add("description", StringType)
    .add("format", new StructType().add("provider", StringType).add("options", stringMap))
    .add("schemaString", StringType)
    .add("partitionColumns", ArrayType(StringType))
    .add("configuration", stringMap)
    .add("createdTime", LongType)

  val protocol: StructType = new StructType()
    .add("minReaderVersion", IntegerType)
    .add("minWriterVersion", IntegerType)
    .add("readerFeatures", ArrayType(StringType))
    .add("writerFeatures", ArrayType(StringType))

  val txn: StructType = new StructType()
    .add("appId", StringType)
    .add("version", LongType)
    .add("lastUpdated", LongType)

  val domainMetadata: StructType = new StructType()
    .add("domain", StringType)
    .add("configuration", StringType)
    .add("removed", BooleanType)

  val commitInfo: StructType = new StructType()
    .add("timestamp", LongType)
    .add("inCommitTimestamp", LongType)
    .add("userId", StringType)
    .add("userName", StringType)
    .add("operation", StringType)
    .add("operationParameters", stringMap)
    .add("job", stringMap)
    .add("notebook", stringMap)
    .add("clusterId", StringType)
    .add("readVersion", LongType)
    .add("isolationLevel", StringType)
    .add("isBlindAppend", BooleanType)
    .add("operationMetrics", stringMap)
    .add("userMetadata", StringType)
    .add("engineInfo", StringType)
    .add("txnId", StringType)

  val checkpointMetadata: StructType = new StructType()
    .add("version", LongType)
    .add("tags", stringMap)

  val sidecar: StructType = new StructType()
    .add("path", StringType)
    .add("sizeInBytes", LongType)
    .add("modificationTime", LongType)
    .add("tags", stringMap)

  /** add and remove with only what file counts, sizes and reconciliation need: reading these
    * instead of the full actions skips the stats, tags and partition values of every file.
    */
  val leanFileActions: StructType = {
    val dv = new StructType()
      .add("storageType", StringType)
      .add("pathOrInlineDv", StringType)
      .add("offset", IntegerType)
    new StructType()
      .add(
        "add",
        new StructType()
          .add("path", StringType)
          .add("size", LongType)
          .add("deletionVector", dv)
      )
      .add(
        "remove",
        new StructType()
          .add("path", StringType)
          .add("deletionTimestamp", LongType)
          .add("deletionVector", dv)
      )
  }

  /** add and remove in full. */
  val fileActions: StructType = new StructType().add("add", add).add("remove", remove)

  /** Actions that define table state other than files; small enough for the driver. */
  val nonFileActions: StructType = new StructType()
    .add("protocol", protocol)
    .add("metaData", metaData)
    .add("txn", txn)
    .add("domainMetadata", domainMetadata)

  /** One line of a commit or log compaction file. */
  val commitLine: StructType = new StructType()
    .add("add", add)
    .add("remove", remove)
    .add("protocol", protocol)
    .add("metaData", metaData)
    .add("txn", txn)
    .add("domainMetadata", domainMetadata)
    .add("commitInfo", commitInfo)
    .add("checkpointMetadata", checkpointMetadata)
    .add("sidecar", sidecar)

  /** What snapshot state (other than files) needs of a commit line: parsing only this skips the
    * values of file actions, which a large tail's file state parses on its own.
    */
  val stateLine: StructType = nonFileActions
    .add("commitInfo", new StructType().add("inCommitTimestamp", LongType))

  /** What a small tail, parsed on the driver, is parsed against first: [[stateLine]] and
    * [[leanFileActions]].
    */
  val driverLine: StructType = StructType(stateLine.fields ++ leanFileActions.fields)

  /** The non-file rows of a checkpoint (V1 or V2, parquet or json). */
  val checkpointNonFileRow: StructType = new StructType()
    .add("protocol", protocol)
    .add("metaData", metaData)
    .add("txn", txn)
    .add("domainMetadata", domainMetadata)
    .add("checkpointMetadata", checkpointMetadata)
    .add("sidecar", sidecar)
}
