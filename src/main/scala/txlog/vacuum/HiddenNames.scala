package txlog.vacuum

/** Which names VACUUM never lists, deletes or descends into, by delta-spark's rule (the spec's
  * "Data Files" keep data out of directories whose names start with `_`): a name starting with `.`
  * or `_` is hidden, except `_change_data` (change data files, removable once out of retention),
  * `_delta_index` and partition directories `<partition column>=<value>` of a column whose name
  * starts with `_`; `metadata` is hidden too when the table is converted to Iceberg (UniForm keeps
  * its metadata there). `_delta_log` is therefore always hidden.
  *
  * @param partitionColumns
  *   the table's partition columns, by logical name (as their directories are named)
  * @param icebergMetadata
  *   whether `delta.universalFormat.enabledFormats` names iceberg
  */
private[txlog] final case class HiddenNames(
    partitionColumns: Seq[String],
    icebergMetadata: Boolean
) {
  def apply(name: String): Boolean =
    (icebergMetadata && name == "metadata") ||
      ((name.startsWith(".") || name.startsWith("_")) &&
        !name.startsWith("_delta_index") && !name.startsWith("_change_data") &&
        !partitionColumns.exists(c => name.startsWith(c + "=")))

  /** Whether any segment of a relative path is hidden. */
  def anySegment(relative: String): Boolean = relative.split('/').exists(apply)
}

private[txlog] object HiddenNames {

  /** The rule for a table with these partition columns and properties. */
  def of(partitionColumns: Seq[String], configuration: Map[String, String]): HiddenNames =
    HiddenNames(
      partitionColumns,
      configuration
        .get("delta.universalFormat.enabledFormats")
        .exists(_.split(",").map(_.trim.toLowerCase(java.util.Locale.ROOT)).contains("iceberg"))
    )
}
