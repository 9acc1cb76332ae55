package txlog

/** A table's protocol action ("Protocol Evolution"): the reader and writer versions and, from
  * reader version 3 / writer version 7, the table features readers and writers must implement.
  *
  * {{{
  * val p = DeltaLog.forTable(spark, "/data/t").snapshot().protocol
  * if (p.hasReaderFeature("deletionVectors")) ...
  * }}}
  */
final case class Protocol(
    minReaderVersion: Int,
    minWriterVersion: Int,
    readerFeatures: Option[Set[String]],
    writerFeatures: Option[Set[String]]
) {

  /** Whether the protocol lists `feature` as a reader feature. Example:
    * `p.hasReaderFeature("deletionVectors")`.
    */
  def hasReaderFeature(feature: String): Boolean = readerFeatures.exists(_.contains(feature))

  /** Whether the protocol lists `feature` as a writer feature. Example:
    * `p.hasWriterFeature("inCommitTimestamp")`.
    */
  def hasWriterFeature(feature: String): Boolean = writerFeatures.exists(_.contains(feature))
}

/** A table's metaData action ("Change Metadata"), with the schema parsed into a Spark type.
  *
  * {{{
  * val md = DeltaLog.forTable(spark, "/data/t").snapshot().metadata
  * md.schema.printTreeString(); md.partitionColumns.foreach(println)
  * }}}
  */
final case class Metadata(
    id: String,
    name: Option[String],
    description: Option[String],
    formatProvider: String,
    formatOptions: Map[String, String],
    schemaString: String,
    partitionColumns: Seq[String],
    configuration: Map[String, String],
    createdTime: Option[Long]
) {

  /** The table schema as a Spark StructType. Example: `md.schema.fieldNames`. */
  lazy val schema: org.apache.spark.sql.types.StructType =
    Option(schemaString)
      .map(
        org.apache.spark.sql.types.DataType
          .fromJson(_)
          .asInstanceOf[org.apache.spark.sql.types.StructType]
      )
      .getOrElse(new org.apache.spark.sql.types.StructType())
}
