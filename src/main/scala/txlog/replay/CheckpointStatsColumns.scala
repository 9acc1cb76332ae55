package txlog.replay

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.parquet.schema.{GroupType, MessageType}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

import txlog.protocol.FileInfo
import txlog.errors.TxlogErrors
import txlog.checkpoint.ParquetFooters
import txlog.log.{LogSegment, TablePath}
import txlog.util.Lru

/** What the parquet files holding a checkpoint's adds say about their statistics, from their
  * footers (never a scan): whether they have the JSON `add.stats` column, the type of
  * `add.stats_parsed` (physical names, as the writer typed it), and whether every add has typed
  * statistics (proved by null counts: as many `add.stats_parsed.numRecords` values as `add.path`
  * values, in every row group).
  *
  * {{{
  * val layout = CheckpointStatsColumns.of(spark, segment, sidecars)
  * if (layout.exists(_.restoresJson)) ... // stats_parsed must stand in for a missing stats
  * }}}
  */
private[txlog] object CheckpointStatsColumns {

  /** The stats columns of a set of checkpoint parquet files.
    * @param json
    *   every file has `add.stats`
    * @param typed
    *   the one type of `add.stats_parsed` in the files that have it (None: none has it, or they
    *   disagree, which leaves the typed statistics unused)
    * @param everyAddTyped
    *   proved: every add of every file has `stats_parsed`
    */
  final case class Layout(json: Boolean, typed: Option[StructType], everyAddTyped: Boolean) {

    /** `stats_parsed` must be turned back into JSON where `stats` is missing. */
    def restoresJson: Boolean = !json && typed.isDefined
  }

  /** Footers read on the driver, at most this many per checkpoint; past it one Spark job merges the
    * files' schemas, and nothing is proved about every add.
    */
  private val MaxDriverFooters = 32

  /** Footers kept, by (path, size, modification time): a checkpoint file is written once. Bound:
    * this many entries of a few hundred bytes each.
    */
  private val MaxCached = 4096
  private val cache = new Lru[(String, Long, Long), Layout](MaxCached)

  /** The layout of `segment`'s parquet checkpoint files and `sidecars` (paths as given to the
    * reader); None for a segment without a checkpoint, or one whose adds are all in JSON.
    */
  def of(spark: SparkSession, segment: LogSegment, sidecars: Seq[String]): Option[Layout] =
    segment.checkpoint.flatMap { cp =>
      val top =
        if (cp.isJson) Nil
        else cp.files.map(f => (f.file.path, f.file.size, f.file.modificationTime))
      val files = top ++ sidecars.map(s => (s, -1L, -1L))
      if (files.isEmpty) None
      else if (files.size <= MaxDriverFooters)
        Some(combine(cp.version, files.map(f => f._1 -> footer(segment.table, cp.version, f))))
      else {
        // cached under the first file, with the count of files standing for the rest
        val key = (files.head._1 + "#merged", files.size.toLong, files.head._3)
        Some(cache.getOrElseUpdate(key, merged(spark, segment.table, cp.version, files.map(_._1))))
      }
    }

  /** One layout for the files of a checkpoint. When a file lacks `add.stats` and the files disagree
    * on the type of `add.stats_parsed`, its statistics could be restored from neither column:
    * MALFORMED_LOG_FILE naming it, rather than a snapshot silently without them.
    */
  private def combine(version: Long, byFile: Seq[(String, Layout)]): Layout = {
    val layouts = byFile.map(_._2)
    val types = layouts.flatMap(_.typed).distinct
    if (types.size > 1) byFile.find(!_._2.json).foreach { case (file, _) =>
      throw TxlogErrors.malformedLogFile(
        file,
        version,
        "the checkpoint's parquet files disagree on the type of add.stats_parsed " +
          s"(${types.map(_.simpleString).mkString(" vs ")}) and this file has no add.stats: " +
          "its files' statistics cannot be read"
      )
    }
    Layout(
      json = layouts.forall(_.json),
      typed = if (types.size == 1) types.headOption else None,
      everyAddTyped = types.size == 1 && layouts.forall(_.everyAddTyped)
    )
  }

  private def footer(table: TablePath, version: Long, key: (String, Long, Long)): Layout = {
    val (path, size, time) = key
    val listed = if (size >= 0) Some(FileInfo(path, size, time)) else None // a sidecar: -1
    cache.getOrElseUpdate(key, probe(table, version, path, listed))
  }

  private def probe(
      table: TablePath,
      version: Long,
      file: String,
      listed: Option[FileInfo]
  ): Layout = {
    val reader = DriverParquet.open(table, new Path(file), listed)
    try {
      val footer = reader.getFooter
      val schema = footer.getFileMetaData.getSchema
      val add =
        if (schema.containsField("add")) Some(schema.getType(schema.getFieldIndex("add"))) else None
      add.filterNot(_.isPrimitive).map(_.asGroupType()) match {
        case None => Layout(json = true, typed = None, everyAddTyped = true)
        case Some(g) =>
          val json = g.containsField("stats")
          val typed = statsParsedType(g).fold(
            e =>
              // without stats, an unreadable stats_parsed would be statistics silently lost
              if (json) None
              else {
                val detail = "add.stats_parsed has a type txlog cannot read, and add.stats is " +
                  s"absent: the statistics of its files cannot be read (${e.getMessage})"
                throw TxlogErrors.malformedLogFile(file, version, detail, e)
              },
            identity
          )
          val blocks = footer.getBlocks.asScala.toSeq
          val every = typed.isDefined && {
            val paths = ParquetFooters.nonNullCount(blocks, "add.path")
            val typedCounts = ParquetFooters.nonNullCount(blocks, "add.stats_parsed.numRecords")
            paths.isDefined && paths == typedCounts
          }
          Layout(json = json, typed = typed, everyAddTyped = every)
      }
    } finally reader.close()
  }

  /** `add.stats_parsed` of the `add` group as Spark reads it (Right(None) when absent or not a
    * struct; Left when its parquet type does not convert).
    */
  private def statsParsedType(add: GroupType): Either[Throwable, Option[StructType]] =
    if (!add.containsField("stats_parsed")) Right(None)
    else {
      val only = new MessageType(
        "checkpoint",
        new GroupType(add.getRepetition, "add", add.getType("stats_parsed"))
      )
      try {
        val converted = new ParquetToSparkSchemaConverter(SQLConf.get).convert(only)
        converted("add").dataType.asInstanceOf[StructType]("stats_parsed").dataType match {
          case s: StructType => Right(Some(s))
          case _             => Right(None)
        }
      } catch { case NonFatal(e) => Left(e) }
    }

  /** Many files: their schemas merged by one Spark job (Spark's parquet schema merge). */
  private def merged(
      spark: SparkSession,
      table: TablePath,
      version: Long,
      files: Seq[String]
  ): Layout = {
    val schema =
      try
        spark.read
          .options(table.readOptions)
          .option("mergeSchema", "true")
          .parquet(files: _*)
          .schema
      catch {
        // parts whose schemas do not merge (add.stats_parsed typed differently): files whose
        // statistics might be only there cannot be told apart here
        case e: org.apache.spark.SparkException =>
          throw TxlogErrors.malformedLogFile(
            files.head,
            version,
            s"the schemas of the checkpoint's ${files.size} parquet files do not merge: ${e.getMessage}",
            e
          )
      }
    val add =
      schema.fields.find(_.name == "add").map(_.dataType).collect { case s: StructType => s }
    val typed = add.flatMap(_.fields.find(_.name == "stats_parsed")).map(_.dataType).collect {
      case s: StructType => s
    }
    // a merged schema has `stats` if any file has it: nothing is proved about all of them
    Layout(json = false, typed = typed, everyAddTyped = false)
  }
}

/** A snapshot's way to a scan's typed statistics: the layout of its checkpoint's statistics columns
  * (footers read on first use), and its file state planned with a scan's typed statistics beside
  * the files ([[FileState.TypedStatsColumn]]).
  */
private[txlog] final class TypedStatsSource(
    layoutOf: => Option[CheckpointStatsColumns.Layout],
    planOf: FileState.TypedStatsRead => DataFrame
) {
  lazy val layout: Option[CheckpointStatsColumns.Layout] = layoutOf
  def files(read: FileState.TypedStatsRead): DataFrame = planOf(read)
}
