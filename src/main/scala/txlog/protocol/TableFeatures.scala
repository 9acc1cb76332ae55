package txlog.protocol

import org.apache.spark.sql.types._

import txlog.Protocol

/** The table features a commit may use ("Table Features"), which of them readers must know, the
  * legacy protocol versions that imply them, and which properties or schema types call for them.
  */
private[txlog] object TableFeatures {

  /** Writer features txlog implements on commit. Maintenance (checkpoints, cleanup) accepts more
    * (`WriterGate`), since it writes no data and keeps actions unchanged; a commit must follow
    * every listed feature's rules, so this set is smaller.
    */
  val CommitWriterFeatures: Set[String] = Set(
    "appendOnly",
    "invariants",
    "checkConstraints",
    "changeDataFeed",
    "columnMapping",
    "deletionVectors",
    "rowTracking",
    "domainMetadata",
    "inCommitTimestamp",
    "timestampNtz",
    "v2Checkpoint",
    "vacuumProtocolCheck"
  )

  /** Reader-writer features: listed in readerFeatures too. */
  val ReaderWriterFeatures: Set[String] =
    Set("columnMapping", "deletionVectors", "timestampNtz", "v2Checkpoint", "vacuumProtocolCheck")

  /** The legacy (reader, writer) versions that imply a feature, for the features that have one. */
  val Legacy: Map[String, (Int, Int)] = Map(
    "appendOnly" -> (1, 2),
    "invariants" -> (1, 2),
    "checkConstraints" -> (1, 3),
    "changeDataFeed" -> (1, 4),
    "generatedColumns" -> (1, 4),
    "columnMapping" -> (2, 5),
    "identityColumns" -> (1, 6)
  )

  /** The features a protocol supports: those listed, or those its legacy versions imply. */
  def supported(p: Protocol): Set[String] = {
    val implied = Legacy.collect {
      case (f, (r, w)) if p.minReaderVersion >= r && p.minWriterVersion >= w => f
    }.toSet
    val listed = p.writerFeatures.getOrElse(Set.empty) ++ p.readerFeatures.getOrElse(Set.empty)
    if (p.minWriterVersion >= 7) listed else implied
  }

  private def on(properties: Map[String, String], key: String): Boolean =
    TableProperties.flag(properties, key)

  /** The features metadata with `properties` and `schema` calls for. */
  def required(schema: StructType, properties: Map[String, String]): Set[String] = {
    val fromProperties = Seq(
      on(properties, "delta.appendOnly") -> "appendOnly",
      properties.keys.exists(_.startsWith("delta.constraints.")) -> "checkConstraints",
      on(properties, "delta.enableChangeDataFeed") -> "changeDataFeed",
      properties
        .get(ColumnMapping.ModeProperty)
        .exists(m => !m.trim.equalsIgnoreCase("none")) -> "columnMapping",
      on(properties, "delta.enableDeletionVectors") -> "deletionVectors",
      on(properties, "delta.enableRowTracking") -> "rowTracking",
      on(properties, "delta.enableRowTracking") -> "domainMetadata",
      on(properties, "delta.enableInCommitTimestamps") -> "inCommitTimestamp",
      properties
        .get("delta.checkpointPolicy")
        .exists(_.trim.equalsIgnoreCase("v2")) -> "v2Checkpoint"
    ).collect { case (true, f) => f }
    (fromProperties ++ fromSchema(schema)).toSet
  }

  /** The features the schema's types and column metadata call for (spec, "Generated Columns",
    * "Default Columns", "Identity Columns"; delta-spark's variantType, geospatial and collations).
    * Types are matched by name, so that a Spark line without them (3.5 has no variant) compiles.
    */
  private def fromSchema(schema: StructType): Seq[String] = Seq(
    hasType(schema, _ == TimestampNTZType) -> "timestampNtz",
    hasKey(schema, "delta.invariants") -> "invariants",
    hasKey(schema, "delta.generationExpression") -> "generatedColumns",
    hasKey(schema, "delta.identity.start") -> "identityColumns",
    hasKey(schema, "CURRENT_DEFAULT") -> "allowColumnDefaults",
    hasType(schema, _.typeName == "variant") -> "variantType",
    hasType(schema, t => Set("geometry", "geography").exists(t.typeName.startsWith)) ->
      "geospatial",
    (hasKey(schema, "__COLLATIONS") || hasType(schema, _.typeName.startsWith("string collate"))) ->
      "collations"
  ).collect { case (true, f) => f }

  /** Features asked for explicitly: `delta.feature.<name> = supported` (or enabled). */
  def explicit(properties: Map[String, String]): Set[String] = properties.collect {
    case (k, v)
        if k.startsWith("delta.feature.") &&
          Set("supported", "enabled").contains(v.trim.toLowerCase(java.util.Locale.ROOT)) =>
      k.stripPrefix("delta.feature.")
  }.toSet

  /** The smallest protocol supporting `features`, at least (`minReader`, `minWriter`), as
    * delta-spark 4 chooses it: the legacy versions asked for when they imply every feature, table
    * features otherwise (writer version 7, listing the features the legacy versions imply too;
    * reader version 3 with readerFeatures for reader-writer features other than column mapping, 2
    * for column mapping alone).
    */
  def protocolFor(asked: Set[String], minReader: Int, minWriter: Int): Protocol = {
    val features = withNeeded(asked)
    val legacy = Protocol(minReader.min(2).max(1), minWriter.min(6).max(1), None, None)
    if (minWriter < 7 && minReader < 3 && (features -- supported(legacy)).isEmpty) legacy
    else tableFeatures(supported(legacy) ++ features, minReader)
  }

  /** A protocol supporting what `p` supports plus `features`, never lower than `p`. */
  def withFeatures(p: Protocol, asked: Set[String]): Protocol = {
    val features = withNeeded(asked)
    if ((features -- supported(p)).isEmpty) p
    else {
      val out = tableFeatures(supported(p) ++ features, p.minReaderVersion)
      val readers = out.readerFeatures.map(_ ++ p.readerFeatures.getOrElse(Set.empty))
      out.copy(readerFeatures = readers)
    }
  }

  /** Features another needs supported beside it: row tracking keeps its high water mark in a domain
    * (spec, "Row Tracking": writers need domainMetadata).
    */
  private val Needs: Map[String, Set[String]] = Map("rowTracking" -> Set("domainMetadata"))

  /** `features` with the features they need. */
  def withNeeded(features: Set[String]): Set[String] =
    features ++ features.flatMap(Needs.getOrElse(_, Set.empty))

  private def tableFeatures(all: Set[String], minReader: Int): Protocol = {
    val readers = all.intersect(ReaderWriterFeatures)
    val reader =
      if (minReader >= 3 || (readers - "columnMapping").nonEmpty) 3
      else if (readers.contains("columnMapping") || minReader == 2) 2
      else 1
    Protocol(reader, 7, if (reader == 3) Some(readers) else None, Some(all))
  }

  /** The features of `p` whose rules a writer must follow on a table with `schema`: every listed
    * one, and of those legacy versions imply, the ones the table uses (generated and identity
    * columns only when a column has a generation expression or is an identity column).
    */
  def inUse(p: Protocol, schema: StructType): Set[String] =
    if (p.minWriterVersion >= 7) supported(p)
    else
      supported(p).filter {
        case "generatedColumns" => hasKey(schema, "delta.generationExpression")
        case "identityColumns"  => hasKey(schema, "delta.identity.start")
        case _                  => true
      }

  private def hasKey(t: DataType, key: String): Boolean = t match {
    case s: StructType =>
      s.fields.exists(f => f.metadata.contains(key) || hasKey(f.dataType, key))
    case a: ArrayType => hasKey(a.elementType, key)
    case m: MapType   => hasKey(m.keyType, key) || hasKey(m.valueType, key)
    case _            => false
  }

  private def hasType(t: DataType, pred: DataType => Boolean): Boolean = t match {
    case s: StructType => s.fields.exists(f => hasType(f.dataType, pred))
    case a: ArrayType  => hasType(a.elementType, pred)
    case m: MapType    => hasType(m.keyType, pred) || hasType(m.valueType, pred)
    case other         => pred(other)
  }
}
