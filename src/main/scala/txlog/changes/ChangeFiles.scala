package txlog.changes

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{ArrayType, DataType, LongType, MapType, StringType, StructType}

import txlog.protocol.TableConfiguration
import txlog.Metadata
import txlog.errors.TxlogErrors
import txlog.deletionvectors.DvDescriptor
import txlog.log.LogListing
import txlog.protocol.{ActionSchemas, ColumnMapping, FileColumns}
import txlog.replay.{FileKeys, LogActions, LogLineReader}
import txlog.scan.ScanFiles
import txlog.timetravel.CommitTimeline
import txlog.util.Jobs

/** One file of the change data feed and what is read of it: a `cdc` file (its rows carry their
  * `_change_type`), or an added or removed data file whose rows are all `changeType`. Rows in
  * `exclude` are left out; when `keep` is set only its rows are read (the rows a commit's new
  * deletion vector deletes).
  *
  * {{{
  * ChangeFile(3L, 1717200000000L, Some("insert"), "file:/t/a.parquet", 1024L, 0L, null, None,
  *   None)
  * }}}
  */
private[txlog] final case class ChangeFile(
    version: Long,
    /** The commit timestamp, in milliseconds since the epoch. */
    timestamp: Long,
    /** None for a `cdc` file, else `insert` or `delete`. */
    changeType: Option[String],
    path: String,
    size: Long,
    modificationTime: Long,
    /** The typed partition values (logical names), null when unpartitioned. */
    partitionValues: Row,
    exclude: Option[DvDescriptor],
    keep: Option[DvDescriptor]
)

/** The change files of versions `[start, end]`, read from those commits alone (one Spark job; only
  * the range's file actions reach the driver, never the table's file state):
  *   - a commit with `cdc` actions: those files ("Change Data Files");
  *   - otherwise its `add` actions with dataChange as `insert` and its `remove` actions with
  *     dataChange as `delete`, each file's rows minus the deletion vector its action carries;
  *   - a path removed and added again in one commit with a different deletion vector: the rows the
  *     new vector deletes and the old did not are `delete`, the rows the old one deleted and the
  *     new does not are `insert` (a DELETE or UPDATE with deletion vectors, or a RESTORE).
  *
  * `delta.enableChangeDataFeed` must be true in the metadata in force at every version, else
  * CHANGE_DATA_NOT_RECORDED names the first version where it is not; the end version's schema, with
  * which every row is read, must read every schema of the range and have no column the feed adds,
  * else CHANGE_DATA_SCHEMA_INCOMPATIBLE ([[ChangeSchemas]]; the range's metaData actions come from
  * the same job).
  *
  * {{{
  * val files = ChangeFiles.of(spark, listing, 2L, 5L, startMetadata, endMetadata, timeline)
  * }}}
  */
private[txlog] object ChangeFiles {

  val CdfProperty = "delta.enableChangeDataFeed"

  private val stringMap = MapType(StringType, StringType, valueContainsNull = true)

  private val Schema = new StructType()
    .add("add", ActionSchemas.add)
    .add("remove", ActionSchemas.remove)
    .add("cdc", ActionSchemas.cdc)
    .add(
      "metaData",
      new StructType()
        .add("schemaString", StringType)
        .add("partitionColumns", ArrayType(StringType))
        .add("configuration", stringMap)
    )
    .add("commitInfo", new StructType().add("inCommitTimestamp", LongType))

  def enabled(md: Metadata): Boolean = TableConfiguration.changeDataFeed(md.configuration)

  def of(
      spark: SparkSession,
      listing: LogListing,
      start: Long,
      end: Long,
      startMetadata: Metadata,
      endMetadata: Metadata,
      timeline: CommitTimeline
  ): Seq[ChangeFile] = {
    val root = listing.table.root
    if (!enabled(startMetadata)) throw notRecorded(root, start)
    ChangeSchemas.refuseReserved(root, end, endMetadata.schema)
    val commits = (start to end).map { v =>
      listing.commit(v).getOrElse {
        throw TxlogErrors.versionNotFound(root, v, listing.earliestListed, listing.latestVersion)
      }
    }
    val parsed = LogActions.parseLines(
      LogLineReader.read(spark, listing.table, commits.map(c => c.version -> c.file)),
      Schema
    )
    val kind = when(col("cdc").isNotNull, "cdc")
      .when(col("add").isNotNull, "add")
      .when(col("remove").isNotNull, "remove")
      .when(col("metaData").isNotNull, "metaData")
      .when(col("commitInfo").isNotNull, "commitInfo")
    val pv = coalesce(
      col("cdc.partitionValues"),
      col("add.partitionValues"),
      col("remove.partitionValues")
    )
    val rows = Jobs.named(spark, s"change files of $root versions $start to $end") {
      parsed
        .where(
          col("cdc").isNotNull || (col("add").isNotNull && col("add.dataChange")) ||
            (col("remove").isNotNull && col("remove.dataChange")) || col("metaData").isNotNull ||
            col("commitInfo.inCommitTimestamp").isNotNull ||
            col(LogActions.CorruptColumn).isNotNull
        )
        .select(
          col("version"),
          col("file"),
          kind.as("kind"),
          coalesce(col("cdc.path"), col("add.path"), col("remove.path")).as("path"),
          coalesce(col("cdc.size"), col("add.size"), col("remove.size")).as("size"),
          coalesce(col("add.modificationTime"), col("remove.deletionTimestamp")).as("mtime"),
          coalesce(col("add.deletionVector"), col("remove.deletionVector")).as("dv"),
          FileColumns.partitionValuesParsed(pv, endMetadata).as("pv"),
          col("metaData.configuration").as("configuration"),
          col("commitInfo.inCommitTimestamp").as("ict"),
          col(LogActions.CorruptColumn).as("corrupt"),
          FileColumns.unparsedPartitionValue(pv, endMetadata).as("unparsed"),
          col("metaData.schemaString").as("schema"),
          col("metaData.partitionColumns").as("partitionColumns")
        )
        .collect()
        .toSeq
    }
    // the first corrupt line and the first version with the feed off, in version order
    rows.filter(r => !r.isNullAt(10)).sortBy(_.getLong(0)).headOption.foreach { r =>
      throw TxlogErrors.malformedLogFile(
        r.getString(1),
        r.getLong(0),
        s"A line is not a valid action: ${r.getString(10).take(200)}"
      )
    }
    // the first version with the feed off, and the schemas the end's cannot read before it, as
    // delta-spark checks them commit by commit (the feed first), then the schema at the start
    val changed = rows.filter(r => r.getString(2) == "metaData" && r.getLong(0) > start)
    val off = changed
      .filter(r => !TableConfiguration.changeDataFeed(configuration(r)))
      .map(_.getLong(0))
      .sorted
      .headOption
    ChangeSchemas.refuseIncompatible(
      root,
      start,
      end,
      ChangeSchemas.of(end, endMetadata),
      ChangeSchemas.of(start, startMetadata),
      changed.map(rangeSchema),
      off
    )
    off.foreach(v => throw notRecorded(root, v))
    // a partition value that does not parse is refused, never read as null
    ScanFiles.refuseUnparsed(
      root,
      end,
      rows.filter(r => !r.isNullAt(11)).sortBy(_.getLong(0)),
      3,
      11
    )
    val icts = rows.filter(r => !r.isNullAt(9)).map(r => r.getLong(0) -> r.getLong(9)).toMap
    val fs = listing.table.fs
    // a remove may lack its size (written without extendedFileMetadata): asked of the file
    // system only when the remove is read
    def sizeOf(a: Action): Long = a.size.getOrElse {
      try fs.getFileStatus(new org.apache.hadoop.fs.Path(a.path)).getLen
      catch {
        case e: java.io.FileNotFoundException =>
          throw TxlogErrors.dataFileNotFound(root, a.version, a.path, e)
      }
    }
    val actions = rows.filter(r => Set("cdc", "add", "remove")(r.getString(2))).map { r =>
      Action(
        r.getLong(0),
        r.getString(2),
        FileKeys.canonicalize(root, r.getString(3)),
        if (r.isNullAt(4)) None else Some(r.getLong(4)),
        if (r.isNullAt(5)) 0L else r.getLong(5),
        Option(r.getStruct(6)).map(DvDescriptor.fromRow),
        r.getStruct(7)
      )
    }
    val byVersion = actions.groupBy(_.version)
    (start to end).flatMap { v =>
      val ts = timeline.timestampOf(v, icts.get(v))
      changesOf(byVersion.getOrElse(v, Nil)).map { case Change(a, changeType, exclude, keep) =>
        ChangeFile(
          v,
          ts,
          changeType,
          a.path,
          sizeOf(a),
          a.modificationTime,
          a.partitionValues,
          exclude,
          keep
        )
      }
    }
  }

  /** The schema of a metaData row of the job; a schema that does not parse is MALFORMED_LOG_FILE.
    */
  private def rangeSchema(r: Row): RangeSchema = {
    val version = r.getLong(0)
    val schema =
      try {
        DataType.fromJson(Option(r.getString(12)).getOrElse("")) match {
          case s: StructType => s
          case other         => throw new IllegalArgumentException(s"not a struct: ${other.sql}")
        }
      } catch {
        case e: Exception =>
          throw TxlogErrors.malformedLogFile(
            r.getString(1),
            version,
            s"The metaData action's schemaString is not a schema: ${e.getMessage}"
          )
      }
    val partitionColumns =
      if (r.isNullAt(13)) Nil else r.getSeq[String](13).toList
    val mode = TableConfiguration.columnMappingMode(configuration(r))
    RangeSchema(version, schema, partitionColumns, mode)
  }

  /** The configuration of a metaData row of the job (empty when it has none). */
  private def configuration(r: Row): Map[String, String] =
    if (r.isNullAt(8)) Map.empty else r.getMap[String, String](8).toMap

  /** One add, remove or cdc action of the range. */
  private final case class Action(
      version: Long,
      kind: String,
      path: String,
      size: Option[Long],
      modificationTime: Long,
      dv: Option[DvDescriptor],
      partitionValues: Row
  )

  /** What is read of an action's file (see [[ChangeFile]]). */
  private final case class Change(
      action: Action,
      changeType: Option[String],
      exclude: Option[DvDescriptor],
      keep: Option[DvDescriptor]
  )

  /** The changes of one commit's actions. */
  private def changesOf(actions: Seq[Action]): Seq[Change] = {
    val cdc = actions.filter(_.kind == "cdc")
    if (cdc.nonEmpty) cdc.map(Change(_, None, None, None))
    else {
      val adds = actions.filter(_.kind == "add")
      val removes = actions.filter(_.kind == "remove")
      val removed = removes.map(r => r.path -> r).toMap
      val added = adds.map(_.path).toSet
      val inserts = adds.flatMap { a =>
        removed.get(a.path) match {
          case None                    => Seq(Change(a, Some("insert"), a.dv, None))
          case Some(r) if r.dv == a.dv => Nil // the same rows: no change
          case Some(r)                 =>
            // rows the new vector deletes and the old did not; rows only the old one deleted
            a.dv.map(n => Change(a, Some("delete"), r.dv, Some(n))).toSeq ++
              r.dv.map(o => Change(a, Some("insert"), a.dv, Some(o))).toSeq
        }
      }
      val deletes =
        removes.filterNot(r => added(r.path)).map(r => Change(r, Some("delete"), r.dv, None))
      inserts ++ deletes
    }
  }

  private def notRecorded(root: String, version: Long) =
    TxlogErrors.changeDataNotRecorded(
      root,
      version,
      s"$CdfProperty is not true in the metadata in force at version $version, so the " +
        "changes of that commit were not recorded as change data."
    )
}
