package txlog.checkpoint

import java.util.UUID

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.{Column, DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions._

import txlog.{CheckpointResult, Snapshot, TxlogErrors}
import txlog.actions.ActionSchemas
import txlog.log.{FileNames, LastCheckpoint, LogWrites, TablePath}
import txlog.replay.FileKeys
import txlog.storage.{LogStore, LogStores}
import txlog.table.WriterGate
import txlog.util.Jobs

/** Writes a checkpoint of a snapshot as Spark jobs: executors write the parquet (or JSON) into a
  * hidden staging directory, the written files are read back and their action counts checked
  * against the snapshot, and only then are they moved into `_delta_log` under the spec's names,
  * followed by `_last_checkpoint`. A failure before the move leaves nothing a reader would use.
  *
  *   - classic: one file, published put-if-absent: a checkpoint of the same version already there
  *     is kept (the spec makes it equivalent) and the result says `alreadyExisted`;
  *   - multi-part: parts hash-clustered on the file key exactly as the spec requires, so racing
  *     writers produce identical parts; each is put-if-absent (an existing part is kept); a reader
  *     ignores the parts until all exist;
  *   - V2: sidecars are moved into `_sidecars` first, the UUID-named top-level file last.
  */
private[txlog] object CheckpointWriter {

  /** Actions per sidecar or multi-part part when their number is not given. */
  val RowsPerFileConf = "spark.txlog.checkpoint.rowsPerFile"
  private val DefaultRowsPerFile = 1000000L

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
    private val rowsPerFile = spark.conf
      .getOption(RowsPerFileConf)
      .map(_.toLong)
      .filter(_ > 0)
      .getOrElse(DefaultRowsPerFile)

    /** Live files and unexpired tombstones, counted from the lean file state. */
    private lazy val (adds, removes) = {
      val files = if (snapshot.isCached) snapshot.reconciledFiles else snapshot.leanFiles
      val r = Jobs.named(spark, s"count actions of ${table.root} v$version") {
        files
          .agg(count(col("add")), count(when(col("add").isNull && content.keepFile, 1)))
          .head()
      }
      (r.getLong(0), r.getLong(1))
    }

    private def expected(v2Spec: Boolean, withFiles: Boolean, sidecars: Long): ActionCounts =
      ActionCounts(
        if (withFiles) adds else 0,
        if (withFiles) removes else 0,
        1,
        1,
        content.txns.size,
        content.domains.size,
        if (v2Spec) 1 else 0,
        sidecars
      )

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

    private def verify(what: String, files: Seq[Path], format: String, want: ActionCounts): Unit = {
      val got = StagedFiles.counts(spark, table, files, format)
      if (got != want) {
        throw TxlogErrors.checkpointVerificationFailed(
          table.root,
          version,
          s"The written $what holds $got; the snapshot has $want."
        )
      }
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
      val df = CheckpointContent.union(Seq(nonFile(v2Spec), content.fileRows(parquet = true)))
      val staged = StagedFiles.write(table, df.repartition(1), staging, "parquet")
      require(staged.size == 1, s"expected one checkpoint file, Spark wrote ${staged.size}")
      val want = expected(v2Spec, withFiles = true, 0)
      verify("checkpoint", staged.map(_.status.getPath), "parquet", want)
      observer.reached("staged")
      val (file, existed) =
        publishOnce(
          staged.head.status.getPath,
          table.logDir,
          FileNames.classicCheckpointName(version)
        )
      finish("classic", Seq(file), Nil, want, None, existed)
    }

    def multiPart(requested: Option[Int]): CheckpointResult = {
      val want = expected(v2Spec = false, withFiles = true, 0)
      val parts =
        requested.getOrElse(math.max(2L, (want.total + rowsPerFile - 1) / rowsPerFile).toInt)
      val df = CheckpointContent.union(Seq(nonFile(false), content.fileRows(parquet = true)))
      val written = StagedFiles.write(
        table,
        df.repartition(parts, clusterKey: _*),
        new Path(staging, "parts"),
        "parquet"
      )
      // Spark writes no file for an empty partition; such parts are written empty.
      val missing = (0 until parts).filterNot(written.map(_.partition).toSet)
      val empty = missing.map { i =>
        val dir = new Path(staging, s"empty-$i")
        StagedFiles
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
      verify("multi-part checkpoint", staged.map(_.status.getPath), "parquet", want)
      observer.reached("staged")
      val published = staged.map { s =>
        val name = FileNames.multiPartCheckpointName(version, s.partition + 1, parts)
        val f = publishOnce(s.status.getPath, table.logDir, name)
        observer.reached(s"published part ${s.partition + 1}")
        f
      }
      val files = published.map(_._1)
      finish("multipart", files, Nil, want, Some(parts), published.forall(_._2))
    }

    def uuid(format: String, useSidecars: Boolean): CheckpointResult = {
      val uuid = UUID.randomUUID().toString
      val name = FileNames.uuidCheckpointName(version, uuid, format)
      if (!useSidecars) {
        val df = CheckpointContent.union(
          Seq(nonFile(true), content.fileRows(parquet = format == "parquet"))
        )
        val staged = StagedFiles.write(table, df.repartition(1), staging, format)
        require(staged.size == 1, s"expected one checkpoint file, Spark wrote ${staged.size}")
        val want = expected(v2Spec = true, withFiles = true, 0)
        verify("checkpoint", staged.map(_.status.getPath), format, want)
        observer.reached("staged")
        return finish(
          "v2",
          Seq(publishNew(staged.head.status.getPath, table.logDir, name)),
          Nil,
          want,
          None
        )
      }
      val fileCount = adds + removes
      val sidecars =
        if (fileCount == 0) Nil
        else {
          val n = math.max(1L, (fileCount + rowsPerFile - 1) / rowsPerFile).toInt
          val staged = StagedFiles.write(
            table,
            content.fileRows(parquet = true).repartition(n, clusterKey: _*),
            new Path(staging, "sidecars"),
            "parquet"
          )
          verify(
            "sidecars",
            staged.map(_.status.getPath),
            "parquet",
            ActionCounts(adds, removes, 0, 0, 0, 0, 0, 0)
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
      val staged = StagedFiles.write(table, top, new Path(staging, "top"), format)
      val topWant = expected(v2Spec = true, withFiles = false, sidecars.size)
      verify("checkpoint", staged.map(_.status.getPath), format, topWant)
      observer.reached("staged")
      val file = publishNew(staged.head.status.getPath, table.logDir, name)
      finish("v2", Seq(file), sidecars, topWant.copy(adds = adds, removes = removes), None)
    }
  }
}
