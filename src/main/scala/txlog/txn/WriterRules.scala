package txlog.txn

import scala.util.Try

import org.apache.spark.sql.types.{DataType, StructType}

import txlog.{Metadata, Protocol}
import txlog.errors.TxlogErrors
import txlog.protocol.{ColumnMapping, Constraints, IdentityColumns, InCommitTimestamps}
import txlog.protocol.{ReaderGate, RowTrackingSpec, TableConfiguration, TableFeatures}

/** The spec's writer rules for a commit's protocol and metadata, applied before anything is
  * written: which protocol a new table needs for the features it uses, column mapping's physical
  * names and ids, refusal of unsupported writer features and protocol downgrades.
  */
private[txlog] object WriterRules {

  /** Properties that set the protocol rather than being stored (as delta-spark treats them). */
  private val ProtocolProperties = Set("delta.minReaderVersion", "delta.minWriterVersion")

  /** The protocol and metadata of a new table: `schema`, `partitionColumns` and table properties
    * `properties` (`delta.*` keys enable features). Example: `WriterRules.newTable(schema,
    * Seq("date"), Map("delta.appendOnly" -> "true"), now)`.
    */
  def newTable(
      schema: StructType,
      partitionColumns: Seq[String],
      properties: Map[String, String],
      now: Long
  ): (Protocol, Metadata) = {
    checkPartitionColumns(schema, partitionColumns, "partitionBy")
    Constraints.checkEnforceableNotNull("the new table", None, schema)
    val explicitFeatures = TableFeatures.explicit(properties)
    val unknown = explicitFeatures -- TableFeatures.CommitWriterFeatures
    if (unknown.nonEmpty) {
      throw TxlogErrors.unsupportedWriterFeatures(
        "the new table",
        unknown.toSeq.sorted,
        "create a table"
      )
    }
    val minReader = version(properties, "delta.minReaderVersion", 1, 3)
    val minWriter = version(properties, "delta.minWriterVersion", 2, 7)
    val stored = properties.filter { case (k, _) =>
      !ProtocolProperties.contains(k) && !k.startsWith("delta.feature.")
    }
    checkColumnMappingMode(stored)
    ColumnMapping.checkNames("the new table", None, schema, stored)
    val features = TableFeatures.required(schema, stored) ++ explicitFeatures
    val protocol = TableFeatures.protocolFor(features, minReader, minWriter)
    val (finalSchema, configuration) = completeNew(schema, stored, features)
    val md = Metadata(
      java.util.UUID.randomUUID().toString,
      None,
      None,
      "parquet",
      Map.empty,
      finalSchema.json,
      partitionColumns,
      configuration,
      Some(now)
    )
    (protocol, md)
  }

  /** Column mapping ids and physical names, and row tracking's materialized column names. */
  private def completeNew(
      schema: StructType,
      properties: Map[String, String],
      features: Set[String]
  ): (StructType, Map[String, String]) = {
    val mapped =
      if (!columnMappingOn(properties)) (schema, properties)
      else {
        val (s, max) = ColumnMappingAssign.assign(schema, 0L)
        (s, properties + (ColumnMapping.MaxIdProperty -> max.toString))
      }
    val rowTracking =
      if (!features.contains("rowTracking")) mapped._2
      else
        mapped._2 ++ RowTrackingSpec.ColumnNameKeys.collect {
          case (k, prefix) if !mapped._2.contains(k) =>
            k -> s"$prefix${java.util.UUID.randomUUID()}"
        }
    (mapped._1, rowTracking)
  }

  /** The protocol and metadata a commit writes (None: unchanged), checked and completed against
    * those in force before it (`current`; None when the commit creates the table).
    * UNSUPPORTED_WRITER_FEATURES for a feature txlog cannot follow on commit, PROTOCOL_DOWNGRADE
    * for a protocol that supports less than the current one, INVALID_METADATA for metadata that
    * breaks the spec or changes what may not change. `replacing`: the commit removes every file of
    * the version read (checked by the committer before it publishes), so its metadata may change
    * column types, drop columns and repartition.
    */
  def prepare(
      table: String,
      version: Long,
      current: Option[(Protocol, Metadata)],
      protocol: Option[Protocol],
      metadata: Option[Metadata],
      restoring: Boolean = false,
      replacing: Boolean = false
  ): (Option[Protocol], Option[Metadata]) = {
    // A restore's metadata is an older version's: it is checked on its own, not against the
    // current metadata (delta-spark restores the old schema, dropped columns and all).
    val against = if (restoring) None else current.map(_._2)
    // `delta.feature.<name> = supported` asks for a protocol upgrade, as in delta-spark's ALTER
    // TABLE SET TBLPROPERTIES: the feature goes to the protocol, the key is not stored.
    val explicit = metadata.fold(Set.empty[String])(m => TableFeatures.explicit(m.configuration))
    val unknown = explicit -- TableFeatures.CommitWriterFeatures
    if (unknown.nonEmpty) {
      throw TxlogErrors.unsupportedWriterFeatures(table, unknown.toSeq.sorted, "commit")
    }
    val completedMd = metadata
      .map(m =>
        m.copy(configuration = m.configuration.filterNot(_._1.startsWith("delta.feature.")))
      )
      .map(m => checkedMetadata(table, against, m, version, replacing))
    // Protocol: the staged one (never lower than the current), raised to what the metadata needs.
    val base = (protocol, current.map(_._1)) match {
      case (Some(p), Some(cur)) => checkNotDowngrade(table, cur, p); p
      case (Some(p), None)      => p
      case (None, Some(cur))    => cur
      case (None, None) =>
        throw TxlogErrors.invalidMetadata(table, "a new table needs a protocol action")
    }
    val md = completedMd.orElse(current.map(_._2)).getOrElse {
      throw TxlogErrors.invalidMetadata(table, "a new table needs a metaData action")
    }
    // The features the protocol lists bring the ones they need too (rowTracking: domainMetadata).
    val raised = TableFeatures.withFeatures(
      base,
      TableFeatures.required(md.schema, md.configuration) ++ explicit ++
        TableFeatures.supported(base)
    )
    ReaderGate.check(table, version, raised)
    if (raised.minWriterVersion > 7) {
      throw TxlogErrors.unsupportedWriterVersion(table, raised.minWriterVersion, "commit")
    }
    // Generated columns the table already has are kept by a commit that leaves them unchanged
    // (the data writer checks each row against them); a commit adding or changing one would
    // need the table's rows checked, which a commit does not do.
    val keptGenerated = current.exists(c => generated(c._2.schema) == generated(md.schema))
    // Column defaults are applied by the data writer to the columns a write leaves out (spec,
    // "Default Columns") on a table that already supports them (txlog does not enable the
    // feature); a commit may set one on an existing column, not on a column it adds.
    val defaultsOn = current.exists(c => TableFeatures.supported(c._1)("allowColumnDefaults"))
    if (defaultsOn) against.foreach(old => checkNoDefaultOnNewColumn(table, old.schema, md.schema))
    val unsupported =
      TableFeatures.inUse(raised, md.schema) -- TableFeatures.CommitWriterFeatures --
        (if (keptGenerated) Set("generatedColumns") else Set.empty[String]) --
        (if (IdentityColumns.allowed(table, current.map(_._2), md)) Set("identityColumns")
         else Set.empty[String]) --
        (if (defaultsOn) Set("allowColumnDefaults") else Set.empty[String])
    if (unsupported.nonEmpty) {
      throw TxlogErrors.unsupportedWriterFeatures(table, unsupported.toSeq.sorted, "commit")
    }
    val newProtocol = Some(raised).filter(p => !current.map(_._1).contains(p))
    val named = RowTracking.withColumnNames(
      table,
      raised,
      current.exists(_._1.hasWriterFeature("rowTracking")),
      current.map(_._2),
      completedMd
    )
    (newProtocol, named.map(ictEnablement(raised, current, version)))
  }

  /** What a commit of `operation` on version `version` (protocol `p`, metadata `md`) that leaves
    * protocol and metadata as they are would be refused for (UNSUPPORTED_WRITER_FEATURES for a
    * feature in use that txlog's commits cannot follow, clustering say), checked before a data file
    * is written rather than when committing after the data job. Example:
    * `WriterRules.checkDataCommit(root, snap.version, snap.protocol, snap.metadata, "write data")`.
    */
  def checkDataCommit(
      table: String,
      version: Long,
      p: Protocol,
      md: Metadata,
      operation: String
  ): Unit = {
    txlog.protocol.WriterGate.check(table, version, p, operation)
    prepare(table, version + 1, Some((p, md)), None, None)
    ()
  }

  /** Enabling in-commit timestamps records the enablement version (the timestamp is the commit's
    * own inCommitTimestamp, filled by the committer: see [[withIctEnablementTimestamp]]).
    */
  private def ictEnablement(p: Protocol, current: Option[(Protocol, Metadata)], version: Long)(
      md: Metadata
  ): Metadata = {
    val wasOn = current.exists { case (cp, cm) => TableConfiguration(cp, cm).inCommitTimestamps }
    val on = TableConfiguration(p, md).inCommitTimestamps
    if (
      on && !wasOn && current.isDefined &&
      !md.configuration.contains(InCommitTimestamps.VersionKey)
    ) {
      md.copy(configuration =
        md.configuration + (InCommitTimestamps.VersionKey -> version.toString)
      )
    } else md
  }

  /** `md` with the in-commit timestamp enablement timestamp set to `ict`, when this commit enables
    * in-commit timestamps (its enablement version is `version`).
    */
  def withIctEnablementTimestamp(md: Metadata, version: Long, ict: Long): Metadata =
    if (md.configuration.get(InCommitTimestamps.VersionKey).contains(version.toString)) {
      md.copy(configuration = md.configuration + (InCommitTimestamps.TimestampKey -> ict.toString))
    } else md

  private def checkedMetadata(
      table: String,
      current: Option[Metadata],
      md: Metadata,
      version: Long,
      replacing: Boolean
  ): Metadata = {
    if (md.schemaString == null || md.schemaString.trim.isEmpty) {
      throw TxlogErrors.invalidMetadata(table, "metaData has no schemaString")
    }
    val schema = Try(DataType.fromJson(md.schemaString)).toOption.collect { case s: StructType =>
      s
    } getOrElse {
      throw TxlogErrors.invalidMetadata(table, "metaData.schemaString is not a struct type")
    }
    if (md.id == null || md.id.isEmpty)
      throw TxlogErrors.invalidMetadata(table, "metaData.id is empty")
    if (md.formatProvider != "parquet") {
      throw TxlogErrors.invalidMetadata(table, s"format ${md.formatProvider} is not parquet")
    }
    checkPartitionColumns(schema, md.partitionColumns, "partitionColumns", Some(table))
    checkColumnMappingMode(md.configuration)
    Constraints.validate(table, md)
    Constraints.checkEnforceableNotNull(table, current.map(_.schema), schema)
    ColumnMapping.checkNames(table, current.map(_.schema), schema, md.configuration)
    try TableConfiguration.checkRetentions(md.configuration)
    catch { case e: txlog.TxlogException => throw TxlogErrors.invalidMetadata(table, e.problem) }
    current.foreach { cur =>
      // under column mapping, partition columns may be renamed (the files key them physically)
      val renamed = mode(cur.configuration) != "none" &&
        ColumnMapping.samePhysical(cur.schema, cur.partitionColumns, schema, md.partitionColumns)
      if (!replacing && cur.partitionColumns != md.partitionColumns && !renamed) {
        throw TxlogErrors.invalidMetadata(
          table,
          s"partition columns cannot change (${cur.partitionColumns.mkString(",")} to " +
            s"${md.partitionColumns.mkString(",")})"
        )
      }
      val curMode = mode(cur.configuration)
      val newMode = mode(md.configuration)
      if (curMode != newMode && !(curMode == "none" && newMode == "name")) {
        throw TxlogErrors.invalidMetadata(
          table,
          s"column mapping mode cannot change from $curMode to $newMode"
        )
      }
      // A commit replacing every file of the table (overwriteSchema) may change types, drop
      // columns and repartition: no data file written under the old schema stays.
      if (!replacing) {
        if (newMode == "none") checkNoRenameOrDrop(table, cur.schema, schema)
        SchemaChanges.check(table, cur.schema, schema)
      }
    }
    val mapped = withColumnMapping(current, md, schema, replacing)
    if (columnMappingOn(md.configuration)) {
      ColumnMappingAssign.checkIdentity(table, current, mapped.schema)
    }
    mapped
  }

  /** `md` (whose schema is `schema`) with column mapping ids and physical names given to the fields
    * that have none and `delta.columnMapping.maxColumnId` raised to the largest id, when its column
    * mapping mode is name or id ([[ColumnMappingAssign.assign]] against `current`'s schema;
    * `replacing`: a commit replacing every file, see its `overwriting`); else `md`. A data write
    * calls this before writing files, which name the new columns by their physical names.
    *
    * {{{
    * val md = WriterRules.withColumnMapping(Some(snap.metadata), merged, merged.schema, false)
    * }}}
    */
  def withColumnMapping(
      current: Option[Metadata],
      md: Metadata,
      schema: StructType,
      replacing: Boolean
  ): Metadata =
    if (!columnMappingOn(md.configuration)) md
    else {
      val start = md.configuration
        .get(ColumnMapping.MaxIdProperty)
        .flatMap(v => Try(v.toLong).toOption)
        .getOrElse(0L)
        .max(ColumnMappingAssign.maxIdIn(schema))
      val (assigned, max) =
        ColumnMappingAssign.assign(schema, start, current.map(_.schema), replacing)
      md.copy(
        schemaString = assigned.json,
        configuration = md.configuration + (ColumnMapping.MaxIdProperty -> max.toString)
      )
    }

  /** Without column mapping, columns may be added but not renamed or dropped: data files name
    * columns by their logical names.
    */
  private def checkNoRenameOrDrop(table: String, before: StructType, after: StructType): Unit = {
    val kept = after.fieldNames.map(_.toLowerCase(java.util.Locale.ROOT)).toSet
    val gone = before.fieldNames.filterNot(n => kept(n.toLowerCase(java.util.Locale.ROOT)))
    if (gone.nonEmpty) {
      throw TxlogErrors.invalidMetadata(
        table,
        s"columns ${gone.mkString(", ")} would be renamed or dropped; that needs column mapping " +
          "(delta.columnMapping.mode = name or id)"
      )
    }
  }

  private def mode(conf: Map[String, String]): String = TableConfiguration.columnMappingMode(conf)

  private def columnMappingOn(conf: Map[String, String]): Boolean = mode(conf) != "none"

  private def checkColumnMappingMode(conf: Map[String, String]): Unit =
    if (!Set("none", "name", "id").contains(mode(conf))) {
      throw TxlogErrors.invalidArgument(
        ColumnMapping.ModeProperty,
        s"'${conf(ColumnMapping.ModeProperty)}' is not none, name or id"
      )
    }

  private def checkNoDefaultOnNewColumn(table: String, old: StructType, now: StructType): Unit = {
    val existing = old.fieldNames.map(_.toLowerCase(java.util.Locale.ROOT)).toSet
    now.fields
      .find(f =>
        f.metadata.contains("CURRENT_DEFAULT") &&
          !existing(f.name.toLowerCase(java.util.Locale.ROOT))
      )
      .foreach { f =>
        throw TxlogErrors.invalidMetadata(
          table,
          s"column ${f.name} is added with a default value; the spec ('Default Columns') " +
            "allows a default only on a column an earlier commit added"
        )
      }
  }

  /** Generation expressions by column. */
  private[txlog] def generated(schema: StructType): Map[String, String] = schema.fields.collect {
    case f if f.metadata.contains("delta.generationExpression") =>
      f.name -> f.metadata.getString("delta.generationExpression")
  }.toMap

  private def checkPartitionColumns(
      schema: StructType,
      columns: Seq[String],
      what: String,
      table: Option[String] = None
  ): Unit = {
    val names = schema.fieldNames.toSet
    val missing = columns.filterNot(names)
    if (missing.nonEmpty || columns.distinct.size != columns.size) {
      val detail = s"$what ${columns.mkString(", ")} must be distinct top-level columns of the " +
        s"schema (${schema.fieldNames.mkString(", ")})"
      throw table.fold(TxlogErrors.invalidArgument(what, detail))(
        TxlogErrors.invalidMetadata(_, detail)
      )
    }
  }

  private def version(props: Map[String, String], key: String, min: Int, max: Int): Int =
    props
      .get(key)
      .map { v =>
        Try(v.trim.toInt).toOption.filter(n => n >= 1 && n <= max).getOrElse {
          throw TxlogErrors.invalidArgument(key, s"'$v' is not a protocol version from 1 to $max")
        }
      }
      .getOrElse(min)

  private def checkNotDowngrade(table: String, cur: Protocol, p: Protocol): Unit = {
    val lost = TableFeatures.supported(cur) -- TableFeatures.supported(p)
    if (
      p.minReaderVersion < cur.minReaderVersion || p.minWriterVersion < cur.minWriterVersion ||
      lost.nonEmpty
    ) {
      throw TxlogErrors.protocolDowngrade(
        table,
        s"(${cur.minReaderVersion}, ${cur.minWriterVersion})",
        s"(${p.minReaderVersion}, ${p.minWriterVersion})",
        lost.toSeq.sorted
      )
    }
  }
}
