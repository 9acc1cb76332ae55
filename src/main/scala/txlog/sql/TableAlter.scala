package txlog.sql

import java.util.Locale

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.TableChange
import org.apache.spark.sql.connector.catalog.TableChange._
import org.apache.spark.sql.types.{StructField, StructType}

import txlog.{DeltaLog, Metadata, Protocol, Snapshot}
import txlog.errors.TxlogErrors
import txlog.protocol.{KnownProperties, TableConfiguration, TableFeatures}
import txlog.util.JsonText

/** `ALTER TABLE` on a txlog table: Spark's table changes made one Delta commit (a metaData action,
  * and a protocol action only when the new metadata or a `delta.minReaderVersion` /
  * `delta.minWriterVersion` asks for more), through [[txlog.Transaction]] and its writer rules
  * (column mapping ids and physical names, `delta.columnMapping.maxColumnId`, protocol features). A
  * change refused here, or by the writer rules, writes nothing.
  *
  * What delta-spark refuses is refused here too: an unknown `delta.` property and a
  * `delta.constraints.` one (INVALID_ARGUMENT); renaming or dropping a column without column
  * mapping, dropping a partition column or the last column, a column a CHECK constraint or a
  * generated column uses, a NOT NULL or DEFAULT column added, a type changed, a nullable column
  * made NOT NULL (INVALID_METADATA).
  *
  * {{{
  * val change = TableChange.setProperty("delta.appendOnly", "true")
  * TableAlter.commit(spark, "/data/events", Seq(change))
  * }}}
  */
private[txlog] object TableAlter {

  /** What a set of changes commits: the new metadata, a protocol when one is asked for, and the
    * operation (with its parameters) commitInfo records.
    */
  final case class Plan(
      metadata: Metadata,
      protocol: Option[Protocol],
      operation: String,
      parameters: Map[String, String]
  )

  /** Applies `changes` to the table at `path`: one commit, or none when they change nothing. */
  def commit(spark: SparkSession, path: String, changes: Seq[TableChange]): Unit = {
    val txn = DeltaLog.forTable(spark, path).startTransaction()
    val snap = txn.readSnapshot.getOrElse(throw TxlogErrors.tableNotFound(path))
    val p = plan(snap, changes)
    if (p.metadata != snap.metadata || p.protocol.isDefined) {
      p.protocol.foreach(txn.upgradeProtocol)
      txn.updateMetadata(p.metadata)
      txn.commit(p.operation, p.parameters)
    }
  }

  /** The commit `changes` make on `snap`, checked; nothing is written. */
  def plan(snap: Snapshot, changes: Seq[TableChange]): Plan = {
    val table = snap.tablePath
    if (changes.isEmpty) throw TxlogErrors.invalidArgument("ALTER TABLE", "no change given")
    changes.foreach {
      case _: SetProperty | _: RemoveProperty | _: ColumnChange => ()
      case other =>
        throw TxlogErrors.invalidArgument(
          "ALTER TABLE",
          s"txlog tables do not take ${other.getClass.getSimpleName} yet"
        )
    }
    val sets = changes.collect { case s: SetProperty => s }
    val unsets = changes.collect { case r: RemoveProperty => r }
    val columns = changes.collect { case c: ColumnChange => c }
    var md = snap.metadata
    var protocol: Option[Protocol] = None
    if (sets.nonEmpty) {
      val (m, p) = setProperties(snap, md, sets)
      md = m
      protocol = p
    }
    if (unsets.nonEmpty) md = unsetProperties(md, unsets)
    if (columns.nonEmpty) {
      val schema = columns.foldLeft(md.schema)(ColumnChanges(table, md))
      // a partition column renamed (column mapping: its values are keyed by physical name)
      val renamed = columns.collect {
        case r: RenameColumn if r.fieldNames().length == 1 => r.fieldNames()(0) -> r.newName()
      }
      val partitions = md.partitionColumns.map { c =>
        renamed.foldLeft(c) { case (now, (from, to)) =>
          if (now.equalsIgnoreCase(from)) to else now
        }
      }
      md = md.copy(schemaString = schema.json, partitionColumns = partitions)
    }
    val (operation, parameters) = describe(changes)
    Plan(md, protocol, operation, parameters)
  }

  private def setProperties(
      snap: Snapshot,
      md: Metadata,
      sets: Seq[SetProperty]
  ): (Metadata, Option[Protocol]) = {
    var conf = md.configuration
    var description = md.description
    var reader = 0
    var writer = 0
    sets.foreach { s =>
      val (key, value) = (s.property(), s.value())
      if (key == "comment") description = Option(value)
      else if (KnownProperties.isConstraint(key)) {
        throw TxlogErrors.invalidArgument(
          key,
          "a CHECK constraint is not set as a table property: use ALTER TABLE ... ADD " +
            "CONSTRAINT (delta-spark refuses it too)"
        )
      } else if (KnownProperties.isFeature(key)) {
        if (!Set("supported", "enabled").contains(value.trim.toLowerCase(Locale.ROOT))) {
          throw TxlogErrors.invalidArgument(key, s"'$value' is not 'supported'")
        }
        conf += key -> value
      } else if (KnownProperties.isDelta(key)) {
        val k = KnownProperties
          .canonical(key)
          .getOrElse(
            throw TxlogErrors.invalidArgument(
              key,
              "not a Delta table property that can be set (delta-spark: " +
                "DELTA_UNKNOWN_CONFIGURATION); check its spelling"
            )
          )
        if (
          KnownProperties.Flags(k) && !Set("true", "false").contains(
            value.trim.toLowerCase(
              Locale.ROOT
            )
          )
        ) {
          throw TxlogErrors.invalidArgument(k, s"'$value' is not true or false")
        }
        if (k == "delta.minReaderVersion") reader = version(k, value, 3)
        else if (k == "delta.minWriterVersion") writer = version(k, value, 7)
        else conf += k -> value
      } else conf += key -> value
    }
    val protocol =
      if (reader == 0 && writer == 0) None
      else {
        val cur = snap.protocol
        val features = TableFeatures.supported(cur)
        Some(
          TableFeatures.protocolFor(
            features,
            reader.max(cur.minReaderVersion),
            writer.max(cur.minWriterVersion)
          )
        )
      }
    (md.copy(configuration = conf, description = description), protocol)
  }

  private def version(key: String, value: String, max: Int): Int =
    scala.util
      .Try(value.trim.toInt)
      .toOption
      .filter(v => v >= 1 && v <= max)
      .getOrElse(
        throw TxlogErrors.invalidArgument(key, s"'$value' is not a protocol version from 1 to $max")
      )

  private def unsetProperties(md: Metadata, unsets: Seq[RemoveProperty]): Metadata = {
    var conf = md.configuration
    var description = md.description
    unsets.foreach { r =>
      val key = r.property()
      if (key == "comment") description = None
      else if (KnownProperties.isConstraint(key)) {
        throw TxlogErrors.invalidArgument(
          key,
          "a CHECK constraint is not unset as a table property: use ALTER TABLE ... DROP " +
            "CONSTRAINT (delta-spark refuses it too)"
        )
      } else {
        val k = KnownProperties.canonical(key).getOrElse(key)
        conf -= k
      }
    }
    md.copy(configuration = conf, description = description)
  }

  /** The operation commitInfo records for `changes` (delta-spark's names) and its parameters. */
  private def describe(changes: Seq[TableChange]): (String, Map[String, String]) =
    changes.head match {
      case _: SetProperty =>
        val props = changes.collect { case s: SetProperty => s.property() -> s.value() }
        "SET TBLPROPERTIES" -> Map("properties" -> JsonText.obj(props))
      case _: RemoveProperty =>
        val keys = changes.collect { case r: RemoveProperty => r.property() }
        "UNSET TBLPROPERTIES" -> Map("properties" -> JsonText.array(keys), "ifExists" -> "true")
      case _: AddColumn =>
        val names = changes.collect { case a: AddColumn => a.fieldNames().mkString(".") }
        "ADD COLUMNS" -> Map("columns" -> JsonText.array(names))
      case r: RenameColumn =>
        val old = r.fieldNames().toSeq
        "RENAME COLUMN" -> Map(
          "oldColumnPath" -> old.mkString("."),
          "newColumnPath" -> (old.init :+ r.newName()).mkString(".")
        )
      case _: DeleteColumn =>
        val names = changes.collect { case d: DeleteColumn => d.fieldNames().mkString(".") }
        "DROP COLUMNS" -> Map("columns" -> JsonText.array(names))
      case c: ColumnChange =>
        "CHANGE COLUMN" -> Map("column" -> c.fieldNames().mkString("."))
      case other => other.getClass.getSimpleName -> Map.empty[String, String]
    }
}

/** One column change applied to a schema, with delta-spark's rules (see [[TableAlter]]). */
private[txlog] final case class ColumnChanges(table: String, md: Metadata)
    extends ((StructType, ColumnChange) => StructType) {

  private val mapped = TableConfiguration.columnMappingMode(md.configuration) != "none"

  override def apply(schema: StructType, change: ColumnChange): StructType = {
    val path = change.fieldNames().toSeq
    try
      change match {
        case a: AddColumn =>
          if (!a.isNullable)
            refuse(
              s"column ${name(path)} is added NOT NULL: the rows already " +
                "written have no value for it (delta-spark refuses it too); add it nullable"
            )
          if (a.defaultValue() != null)
            refuse(
              s"column ${name(path)} is added with a DEFAULT, " +
                "which txlog does not write; add it without one"
            )
          if (SchemaEdits.field(schema, path).isDefined) refuse(s"column ${name(path)} exists")
          val f0 = StructField(path.last, a.dataType(), nullable = true)
          val f = Option(a.comment()).fold(f0)(f0.withComment)
          SchemaEdits.add(schema, path.init, f, a.position())
        case r: RenameColumn =>
          needsMapping("rename", path)
          unused("rename", path)
          val renamed = path.init :+ r.newName()
          if (SchemaEdits.field(schema, renamed).isDefined) refuse(s"${name(renamed)} exists")
          SchemaEdits.update(schema, path)(_.copy(name = r.newName()))
        case d: DeleteColumn =>
          if (SchemaEdits.field(schema, path).isEmpty && Boolean.unbox(d.ifExists())) schema
          else {
            needsMapping("drop", path)
            unused("drop", path)
            if (path.size == 1 && partition(path.head)) {
              refuse(s"column ${name(path)} is a partition column; those cannot be dropped")
            }
            val out = SchemaEdits.drop(schema, path)
            if (out.isEmpty) refuse(s"column ${name(path)} is the table's last column")
            out
          }
        case c: UpdateColumnComment =>
          SchemaEdits.update(schema, path)(_.withComment(c.newComment()))
        case n: UpdateColumnNullability =>
          if (!n.nullable())
            refuse(
              s"column ${name(path)} cannot be made NOT NULL: the rows " +
                "already written are not checked (delta-spark refuses it too)"
            )
          SchemaEdits.update(schema, path)(_.copy(nullable = true))
        case p: UpdateColumnPosition => SchemaEdits.move(schema, path, p.position())
        case t: UpdateColumnType =>
          val now = SchemaEdits.field(schema, path).map(_.dataType)
          if (!now.contains(t.newDataType()))
            refuse(
              s"column ${name(path)} cannot change " +
                s"type to ${t.newDataType().sql}: the data files hold the old type"
            )
          schema
        case other =>
          throw TxlogErrors.invalidArgument(
            "ALTER TABLE",
            s"txlog tables do not take ${other.getClass.getSimpleName} yet"
          )
      }
    catch {
      case SchemaEdits.NoSuchField(p) => refuse(s"the table has no column $p")
    }
  }

  private def name(path: Seq[String]): String = path.mkString(".")

  private def partition(column: String): Boolean =
    md.partitionColumns.exists(_.equalsIgnoreCase(column))

  private def refuse(detail: String): Nothing = throw TxlogErrors.invalidMetadata(table, detail)

  private def needsMapping(what: String, path: Seq[String]): Unit =
    if (!mapped) {
      refuse(
        s"cannot $what column ${name(path)}: that needs column mapping (delta-spark: " +
          s"DELTA_UNSUPPORTED_${what.toUpperCase(Locale.ROOT)}_COLUMN); enable it with " +
          "ALTER TABLE ... SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')"
      )
    }

  /** Refuses a change to a column a CHECK constraint or a generated column refers to. */
  private def unused(what: String, path: Seq[String]): Unit =
    ColumnUses.users(md, path).headOption.foreach { user =>
      refuse(s"cannot $what column ${name(path)}: $user uses it; drop that first")
    }
}
