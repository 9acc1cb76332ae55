package txlog.deletionvectors

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema

import txlog.protocol.ActionSchemas

/** A deletion vector descriptor, the `deletionVector` of an add or remove action ("Deletion Vector
  * Descriptor Schema"): where the DV is (`storageType` 'u', 'p' or 'i' and `pathOrInlineDv`), the
  * start of its data in its file (`offset`, absent for inline ones), the size of its serialized
  * bitmap (`sizeInBytes`) and how many rows it deletes (`cardinality`). As a struct column or a
  * JSON object it has the spec's camelCase field names, `offset` left out when absent.
  *
  * {{{
  * val dv = DvDescriptor("u", "ab^-aqEH.-t@S}K{vb[*k^", Some(4), 40, 6L)
  * dv.uniqueId // "uab^-aqEH.-t@S}K{vb[*k^@4"
  * dv.toJson   // {"storageType":"u","pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^","offset":4,...}
  * }}}
  */
private[txlog] final case class DvDescriptor(
    storageType: String,
    pathOrInlineDv: String,
    offset: Option[Int],
    sizeInBytes: Int,
    cardinality: Long
) {

  /** The spec's derived `uniqueId`: `<storageType><pathOrInlineDv>`, then `@<offset>` when there is
    * one; what log replay keys a file by with its path (`FileKeys.dvId`).
    */
  def uniqueId: String = storageType + pathOrInlineDv + offset.fold("")(o => s"@$o")

  /** The descriptor as a row of the actions' `deletionVector` struct (`maxRowIndex` null), for the
    * `deletionVector` column of the adds and removes a transaction stages.
    */
  def toRow: Row = new GenericRowWithSchema(
    Array[Any](storageType, pathOrInlineDv, offset.getOrElse(null), sizeInBytes, cardinality, null),
    ActionSchemas.deletionVector
  )

  /** The `deletionVector` object of an add or remove in a commit file (and of the JSON entries
    * Python's `add_files` takes).
    */
  def toJson: String = {
    val o = DvDescriptor.mapper.createObjectNode()
    o.put("storageType", storageType).put("pathOrInlineDv", pathOrInlineDv)
    offset.foreach(v => o.put("offset", v))
    o.put("sizeInBytes", sizeInBytes).put("cardinality", cardinality)
    DvDescriptor.mapper.writeValueAsString(o)
  }
}

/** Reads descriptors from the log's rows.
  *
  * {{{
  * val dv = DvDescriptor.fromRow(add.getAs[Row]("deletionVector"))
  * DeletionVectorStore.load(root, version, add.getAs[String]("path"), dv, hadoopConf)
  * }}}
  */
private[txlog] object DvDescriptor {
  private val mapper = new ObjectMapper()
  private val Fields = Seq("storageType", "pathOrInlineDv", "offset", "sizeInBytes", "cardinality")

  /** The descriptor of a JSON object as [[DvDescriptor.toJson]] writes it (the spec's field names,
    * `offset` absent or null when there is none); a missing field raises an
    * IllegalArgumentException naming it.
    *
    * {{{
    * DvDescriptor.fromJson(dv.toJson) == dv // true
    * }}}
    */
  def fromJson(json: String): DvDescriptor = {
    val o = mapper.readTree(json)
    def field(f: String) = Option(o.get(f)).filterNot(_.isNull)
    def required(f: String) = field(f).getOrElse {
      throw new IllegalArgumentException(s"deletionVector.$f is null or absent in $json")
    }
    DvDescriptor(
      storageType = required("storageType").asText,
      pathOrInlineDv = required("pathOrInlineDv").asText,
      offset = field("offset").map(_.asInt),
      sizeInBytes = required("sizeInBytes").asInt,
      cardinality = required("cardinality").asLong
    )
  }

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
