package txlog.checkpoint

import java.util.UUID

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.{Column, DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions._

import txlog.config.TxlogConf
import txlog.{CheckpointResult, Snapshot, TxlogException}
import txlog.errors.TxlogErrors
import txlog.protocol.{ActionSchemas, CheckpointNaming}
import txlog.log.{LastCheckpoint, LogWrites, TablePath}
import txlog.protocol.FileNames
import txlog.replay.{FileKeys, ReadErrors}
import txlog.storage.{LogStore, LogStores}
import txlog.protocol.WriterGate
import txlog.util.Jobs

/** Writes a checkpoint of a snapshot as Spark jobs: executors write the parquet (or JSON) into a
  * hidden staging directory, the written files' action counts are checked (from the parquet
  * footers, which the writer filled in the same pass; JSON files are read back), and only then are
  * they moved into `_delta_log` under the spec's names, followed by `_last_checkpoint`. A failure
  * before the move leaves nothing a reader would use. Files are counted by a pass of their own only
  * where their number decides the layout (multi-part without `parts`, sidecars).
  *
  *   - classic: one file (parquet encoded by parallel tasks whose files are then joined row group
  *     by row group, see [[ParquetConcat]]), published put-if-absent: a checkpoint of the same
  *     version already there is kept (the spec makes it equivalent) and the result says
  *     `alreadyExisted`;
  *   - multi-part: parts hash-clustered on the file key exactly as the spec requires, so racing
  *     writers produce identical parts; each is put-if-absent (an existing part is kept); a reader
  *     ignores the parts until all exist;
  *   - V2: sidecars are moved into `_sidecars` first, the UUID-named top-level file last.
  */
private[txlog] object CheckpointWriter {

  /** Actions per sidecar or multi-part part when their number is not given. */
  val RowsPerFileConf: String = TxlogConf.CheckpointRowsPerFile.key

  /** Writes the checkpoint; `observer` is told of each stage reached (see [[WriteObserver]]). */
  def write(
      spark: SparkSession,
      snapshot: Snapshot,
      kind: Option[String],
      options: Map[String, String],
      observer: WriteObserver = WriteObserver.NoOp
  ): CheckpointResult = {
    val table = snapshot.segment.table
    val version = snapshot.version
    WriterGate.check(table.root, version, snapshot.protocol, "write a checkpoint")
    val k = CheckpointKind.resolve(table.root, kind, options, snapshot.protocol, snapshot.metadata)
    val content = new CheckpointContent(spark, snapshot, snapshot.tombstoneCutoff)
    val store = LogStores.forPath(table.fs, table.logDir)
    store.checkPutIfAbsent(table.logDir)
    val staging = new Path(table.logDir, s".txlog-staging-${UUID.randomUUID()}")
    val w = new Run(spark, snapshot, table, content, staging, store, observer)
    try {
      Jobs.named(spark, s"write ${k.name} checkpoint of ${table.root} v$version") {
        k match {
          case CheckpointKind.Classic(v2)            => w.classic(v2)
          case CheckpointKind.MultiPart(parts)       => w.multiPart(parts)
          case CheckpointKind.Uuid(format, sidecars) => w.uuid(format, sidecars)
        }
      }
    } catch {
      case e: TxlogException => throw e
      // The storage failed while the staged files were written, read back or copied: nothing a
      // reader uses was published (a part or sidecar without its whole checkpoint is ignored).
      case NonFatal(e) if ReadErrors.storageFailure(e) =>
        val name = k match {
          case CheckpointKind.Classic(_) => FileNames.classicCheckpointName(version)
          case _                         => s"${FileNames.padded(version)}.checkpoint.*"
        }
        throw TxlogErrors.writeFailed(new Path(table.logDir, name).toString, e.toString, e)
    } finally LogWrites.deleteQuietly(table.fs, staging)
  }

  private final class Run(
      spark: SparkSession,
      snapshot: Snapshot,
      table: TablePath,
      content: CheckpointContent,
      staging: Path,
      store: LogStore,
      observer: WriteObserver
  ) {
    private val fs = table.fs
    private val version = snapshot.version
    private val rowsPerFile = TxlogConf.CheckpointRowsPerFile.get(spark)

    /** Live files and unexpired tombstones (with the snapshot's tombstone cutoff, as the content
      * keeps them): the snapshot's counts when it has them without a job (a small log the driver
      * read), else counted from the lean file state by a pass of its own.
      */
    private lazy val (adds, removes) = snapshot.countsWithoutJob match {
      case Some(c) => (c.files, c.tombstones)
      case None =>
        val files = if (snapshot.isCached) snapshot.reconciledFiles else snapshot.leanFiles
        val r = Jobs.named(spark, s"count actions of ${table.root} v$version") {
          files
            .agg(count(col("add")), count(when(col("add").isNull && content.keepFile, 1)))
            .head()
        }
        (r.getLong(0), r.getLong(1))
    }

    /** The non-file actions a checkpoint must hold (adds and removes zero). */
    private def nonFileWant(v2Spec: Boolean, sidecars: Long): ActionCounts =
      ActionCounts(
        0,
        0,
        1,
        1,
        content.txns.size,
        content.domains.size,
        if (v2Spec) 1 else 0,
        sidecars
      )

    /** At most this many tasks encode a single-file checkpoint (each writes one file to join); one
      * for a small table, whose one file needs no joining (a table whose log, its checkpoint and
      * commits, holds at most [[SmallLogBytes]]: a V2 checkpoint's sidecars are not counted, so one
      * of those never is).
      */
    private def singleFileTasks: Int = {
      val seg = snapshot.segment
      val v2 = seg.checkpoint.exists(_.naming.isInstanceOf[CheckpointNaming.Uuid])
      val bytes = seg.checkpoint.map(_.sizeInBytes).getOrElse(0L) + seg.tailBytes
      if (!v2 && bytes <= TxlogConf.CheckpointMaxOneTaskLogBytes.get(spark)) 1
      else math.max(2, spark.sparkContext.defaultParallelism * 2)
    }

    private def nonFile(v2Spec: Boolean): DataFrame = {
      val df = content.nonFileRows(v2Spec)
      if (v2Spec) df else df.drop("checkpointMetadata")
    }

    /** The spec's multi-part clustering key: path, plus the DV id on DV-capable tables. */
    private def clusterKey: Seq[Column] = {
      val path = coalesce(col("add.path"), col("remove.path"))
      val p = snapshot.protocol
      if (p.hasReaderFeature("deletionVectors") || p.hasWriterFeature("deletionVectors")) {
        Seq(path, FileKeys.dvId(coalesce(col("add.deletionVector"), col("remove.deletionVector"))))
      } else Seq(path)
    }

    /** Checks that `files` hold the non-file actions of `nonFile` and, when `fileActions` is given,
      * that many adds and removes; returns what they hold. Parquet footers prove the counts when
      * they carry null counts; otherwise the files are read back.
      */
    private def verify(
        what: String,
        files: Seq[Path],
        format: String,
        nonFile: ActionCounts,
        fileActions: Option[(Long, Long)]
    ): ActionCounts = {
      val got = (if (format == "parquet") ParquetFooters.counts(table, files) else None)
        .getOrElse(CheckpointStaging.counts(spark, table, files, format))
      val (a, r) = fileActions.getOrElse((got.adds, got.removes))
      val want = nonFile.copy(adds = a, removes = r)
      if (got != want) {
        throw TxlogErrors.checkpointVerificationFailed(
          table.root,
          version,
          s"The written $what holds $got; the snapshot has $want."
        )
      }
      got
    }

    /** Writes `df` as one staged file: parquet by up to [[singleFileTasks]] tasks whose files are
      * joined, JSON by one task.
      */
    private def single(df: DataFrame, format: String): Path = {
      if (format != "parquet") {
        val staged = CheckpointStaging.write(table, df.repartition(1), staging, format)
        require(staged.size == 1, s"expected one checkpoint file, Spark wrote ${staged.size}")
        return staged.head.status.getPath
      }
      val parts = CheckpointStaging
        .write(table, df.coalesce(singleFileTasks), new Path(staging, "parts"), format)
        .map(_.status.getPath)
      if (parts.size == 1) parts.head
      else ParquetConcat(table, parts, new Path(staging, "joined.parquet"))
    }

    /** The one parquet file of `nonFile` and the file rows, written on the driver when the job
      * would write it in one task and the snapshot's file actions are few and read there
      * ([[DriverCheckpointFile]]); None otherwise.
      */
    private def onDriver(nonFile: DataFrame): Option[Path] = {
      val target = new Path(staging, "driver.parquet")
      val options = CheckpointStaging.ParquetWriteOptions
      val written = singleFileTasks == 1 &&
        DriverCheckpointFile.write(spark, snapshot, content, nonFile, table, target, options)
      if (written) Some(target) else None
    }

    /** Publishes `staged` as `dir/name` unless that exists; the file there and whether it already
      * existed (it is then left untouched: the same version has the same content).
      */
    private def publishOnce(staged: Path, dir: Path, name: String): (FileStatus, Boolean) = {
      val target = new Path(dir, name)
      val existed = !store.publish(staged, target)
      (fs.getFileStatus(target), existed)
    }

    /** Publishes a UUID-named file; one existing already is an error. */
    private def publishNew(staged: Path, dir: Path, name: String): FileStatus = {
      val (status, existed) = publishOnce(staged, dir, name)
      if (existed) throw TxlogErrors.logFileExists(status.getPath.toString)
      status
    }

    private def finish(
        kind: String,
        files: Seq[FileStatus],
        sidecars: Seq[FileStatus],
        counts: ActionCounts,
        parts: Option[Int],
        alreadyExisted: Boolean = false
    ): CheckpointResult = {
      val size = (files ++ sidecars).map(_.getLen).sum
      LastCheckpoint.write(
        fs,
        table.logDir,
        LastCheckpoint(version, counts.total, parts, Some(size), Some(counts.adds), None)
      )
      CheckpointResult(
        version,
        kind,
        files.map(_.getPath.toString),
        sidecars.map(_.getPath.toString),
        counts.total,
        counts.adds,
        counts.removes,
        size,
        alreadyExisted
      )
    }

    def classic(v2Spec: Boolean): CheckpointResult = {
      val staged = onDriver(nonFile(v2Spec)).getOrElse {
        single(
          CheckpointContent.union(Seq(nonFile(v2Spec), content.fileRows(parquet = true))),
          "parquet"
        )
      }
      val got = verify("checkpoint", Seq(staged), "parquet", nonFileWant(v2Spec, 0), None)
      observer.reached("staged")
      val (file, existed) =
        publishOnce(staged, table.logDir, FileNames.classicCheckpointName(version))
      finish("classic", Seq(file), Nil, got, None, existed)
    }

    def multiPart(requested: Option[Int]): CheckpointResult = {
      val nonFileActions = nonFileWant(v2Spec = false, 0)
      // Without a requested number of parts, the files are counted first to size them.
      val fileActions = requested.fold(Option((adds, removes)))(_ => None)
      val parts = requested.getOrElse {
        val total = nonFileActions.total + adds + removes
        math.max(2L, (total + rowsPerFile - 1) / rowsPerFile).toInt
      }
      val df = CheckpointContent.union(Seq(nonFile(false), content.fileRows(parquet = true)))
      val written = CheckpointStaging.write(
        table,
        df.repartition(parts, clusterKey: _*),
        new Path(staging, "parts"),
        "parquet"
      )
      // Spark writes no file for an empty partition; such parts are written empty.
      val missing = (0 until parts).filterNot(written.map(_.partition).toSet)
      val empty = missing.map { i =>
        val dir = new Path(staging, s"empty-$i")
        CheckpointStaging
          .write(
            table,
            spark.createDataFrame(java.util.Collections.emptyList[Row](), df.schema).repartition(1),
            dir,
            "parquet"
          )
          .head
          .copy(partition = i)
      }
      val staged = (written ++ empty).sortBy(_.partition)
      require(staged.map(_.partition) == (0 until parts), "one file per part")
      val got = verify(
        "multi-part checkpoint",
        staged.map(_.status.getPath),
        "parquet",
        nonFileActions,
        fileActions
      )
      observer.reached("staged")
      val published = staged.map { s =>
        val name = FileNames.multiPartCheckpointName(version, s.partition + 1, parts)
        val f = publishOnce(s.status.getPath, table.logDir, name)
        observer.reached(s"published part ${s.partition + 1}")
        f
      }
      val files = published.map(_._1)
      finish("multipart", files, Nil, got, Some(parts), published.forall(_._2))
    }

    def uuid(format: String, useSidecars: Boolean): CheckpointResult = {
      val uuid = UUID.randomUUID().toString
      val name = FileNames.uuidCheckpointName(version, uuid, format)
      if (!useSidecars) {
        val df = CheckpointContent.union(
          Seq(nonFile(true), content.fileRows(parquet = format == "parquet"))
        )
        val staged = single(df, format)
        val got = verify("checkpoint", Seq(staged), format, nonFileWant(v2Spec = true, 0), None)
        observer.reached("staged")
        return finish("v2", Seq(publishNew(staged, table.logDir, name)), Nil, got, None)
      }
      val fileCount = adds + removes
      val sidecars =
        if (fileCount == 0) Nil
        else {
          val n = math.max(1L, (fileCount + rowsPerFile - 1) / rowsPerFile).toInt
          val staged = CheckpointStaging.write(
            table,
            content.fileRows(parquet = true).repartition(n, clusterKey: _*),
            new Path(staging, "sidecars"),
            "parquet"
          )
          verify(
            "sidecars",
            staged.map(_.status.getPath),
            "parquet",
            ActionCounts.zero,
            Some((adds, removes))
          )
          observer.reached("staged sidecars")
          fs.mkdirs(table.sidecarDir)
          staged.map { s =>
            publishNew(s.status.getPath, table.sidecarDir, s"${UUID.randomUUID()}.parquet")
          }
        }
      val sidecarRows = spark.createDataFrame(
        java.util.Arrays.asList(
          sidecars.map(s => Row(Row(s.getPath.getName, s.getLen, s.getModificationTime, null))): _*
        ),
        new org.apache.spark.sql.types.StructType().add("sidecar", ActionSchemas.sidecar)
      )
      // Readers such as delta-spark expect the add and remove columns even when all file
      // actions are in sidecars.
      val fileSchema = content.fileRows(parquet = format == "parquet").schema
      val top = CheckpointContent
        .union(
          Seq(
            nonFile(true),
            sidecarRows.select(
              col("sidecar"),
              lit(null).cast(fileSchema("add").dataType).as("add"),
              lit(null).cast(fileSchema("remove").dataType).as("remove")
            )
          )
        )
        .repartition(1)
      val staged = CheckpointStaging.write(table, top, new Path(staging, "top"), format)
      val topWant = nonFileWant(v2Spec = true, sidecars.size)
      verify("checkpoint", staged.map(_.status.getPath), format, topWant, Some((0L, 0L)))
      observer.reached("staged")
      val file = publishNew(staged.head.status.getPath, table.logDir, name)
      finish("v2", Seq(file), sidecars, topWant.copy(adds = adds, removes = removes), None)
    }
  }
}
