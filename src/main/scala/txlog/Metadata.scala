package txlog

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
