package txlog.deletionvectors

import org.apache.spark.sql.Row

/** A deletion vector descriptor, the `deletionVector` of an add or remove action ("Deletion Vector
  * Descriptor Schema"): where the DV is (`storageType` 'u', 'p' or 'i' and `pathOrInlineDv`), the
  * start of its data in its file (`offset`, absent for inline ones), the size of its serialized
  * bitmap (`sizeInBytes`) and how many rows it deletes (`cardinality`).
  */
private[txlog] final case class DvDescriptor(
    storageType: String,
    pathOrInlineDv: String,
    offset: Option[Int],
    sizeInBytes: Int,
    cardinality: Long
)

/** Reads descriptors from the log's rows.
  *
  * {{{
  * val dv = DvDescriptor.fromRow(add.getAs[Row]("deletionVector"))
  * DeletionVectorStore.load(root, version, add.getAs[String]("path"), dv, hadoopConf)
  * }}}
  */
private[txlog] object DvDescriptor {
  private val Fields = Seq("storageType", "pathOrInlineDv", "offset", "sizeInBytes", "cardinality")

  /** The descriptor a non-null `deletionVector` struct holds, its fields found by the spec's names
    * (or, in a row without a schema, in the spec's order). A null or absent `offset` is None; any
    * other null or absent field raises an IllegalArgumentException naming it.
    */
  def fromRow(row: Row): DvDescriptor = {
    if (row == null) throw new IllegalArgumentException("no deletionVector (null)")
    def index(f: String): Option[Int] =
      Some(if (row.schema == null) Fields.indexOf(f) else row.schema.fieldNames.indexOf(f))
        .filter(i => i >= 0 && i < row.length)
    def required(f: String): Int = index(f).filterNot(row.isNullAt).getOrElse {
      throw new IllegalArgumentException(s"deletionVector.$f is null or absent")
    }
    DvDescriptor(
      storageType = row.getString(required("storageType")),
      pathOrInlineDv = row.getString(required("pathOrInlineDv")),
      offset = index("offset").filterNot(row.isNullAt).map(row.getInt),
      sizeInBytes = row.getInt(required("sizeInBytes")),
      cardinality = row.getLong(required("cardinality"))
    )
  }
}
