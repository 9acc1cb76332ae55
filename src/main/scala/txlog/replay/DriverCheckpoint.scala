package txlog.replay

import java.io.InterruptedIOException
import java.nio.channels.ClosedByInterruptException

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.parquet.hadoop.metadata.BlockMetaData

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType
import org.slf4j.LoggerFactory

import txlog.config.TxlogConf
import txlog.TxlogException
import txlog.errors.TxlogErrors
import txlog.protocol.ActionSchemas
import txlog.log.{CheckpointInstance, LogSegment}

/** A small checkpoint read on the driver, without Spark jobs: its non-file rows when the snapshot
  * is loaded, and, when its file actions are counted, one streamed pass over their paths, sizes,
  * deletion vector ids and deletion times. Nothing that grows with the table is held: the counts
  * are running totals. A reader made with `keepFiles` (a vacuum's) keeps the lean file actions of
  * its load's pass, within the driver's replay budget ([[DriverBudgets.MaxReplayBytesConf]]), for
  * one [[eachFile]], which releases them. A checkpoint is small when its files (all parts, and the
  * sidecars a V2 checkpoint names) total at most [[DriverCheckpoint.MaxBytesConf]] bytes.
  *
  * This is the fast path of a small table's load; anything it cannot read (a shape
  * [[DriverParquet]] does not take, a malformed line, a file that fails to read) makes it give up
  * and the caller reads the checkpoint with Spark, whose reader raises the error a user sees.
  */
private[txlog] final class DriverCheckpoint private (
    spark: SparkSession,
    segment: LogSegment,
    cp: CheckpointInstance,
    maxBytes: Long,
    keepBudget: Long
) {
  private val table = segment.table

  /** The sidecars' bytes as the checkpoint's sidecar actions state them, once its non-file rows
    * were read; None before, or when one does not state its size.
    */
  @volatile private var sidecarBytes: Option[Long] = None

  /** The checkpoint's own file actions, tallied in the pass that read its non-file rows against the
    * overlay given then: live files and bytes, and the deletion times of its removes (one long
    * each: the tombstones' cutoff is known only once the metadata is).
    */
  private final class Tally(
      val overlay: FileOverlay,
      val files: Long,
      val bytes: Long,
      val removedAt: Array[Long]
  )
  @volatile private var tally: Option[Tally] = None

  /** The checkpoint's own file actions that [[nonFileRows]] found not touched by its overlay, kept
    * for one [[eachFile]] against that overlay (adds, then removes, as lean rows).
    */
  private final class Kept(val overlay: FileOverlay, val adds: Array[Row], val removes: Array[Row])
  @volatile private var kept: Option[Kept] = None

  /** Drops the file actions kept for a pass that did not come (a vacuum that failed before it). */
  def releaseKept(): Unit = synchronized { kept = None }

  /** [[Kept]] for `overlay`, released: None when none are kept or they are another overlay's. */
  private def takeKept(overlay: FileOverlay): Option[Kept] = synchronized {
    val k = kept.filter(_.overlay eq overlay)
    kept = None
    k
  }

  /** The checkpoint's non-file rows, as [[NonFileState.checkpointRows]] selects them; None when
    * they cannot be read here. The same pass tallies its file actions against `overlay` (the
    * tail's), so that counting them later reads no part of the checkpoint again; a reader made to
    * keep its files keeps those not touched by `overlay` while they fit its budget.
    */
  def nonFileRows(overlay: FileOverlay = FileOverlay.empty): Option[Seq[Row]] = attempt {
    val rows = Seq.newBuilder[Row]
    var sidecars = Option(0L)
    val keeper = if (keepBudget > 0) Some(new CheckpointKeeper(keepBudget)) else None
    val live = new CheckpointCounter(table.root, overlay, keeper)
    // Row groups whose statistics show no non-file action are read as lean file actions alone.
    val lean = Some(ActionSchemas.leanFileActions -> DriverCheckpoint.holdsNoState _)
    each(cp.files.map(_.file.path), DriverCheckpoint.stateAndFiles, lean) { r =>
      if (r.length > ActionSchemas.leanFileActions.length) {
        NonFileState.checkpointRow(cp.version, cp.files.head.file.path, r).foreach(rows += _)
        val sidecar = r.getAs[Row]("sidecar")
        if (sidecar != null) {
          val size = sidecar.getAs[Any]("sizeInBytes")
          sidecars = if (size == null) None else sidecars.map(_ + size.asInstanceOf[Long])
        }
      }
      live.add(r.getAs[Row]("add"), r.getAs[Row]("remove"))
    }
    sidecarBytes = sidecars
    tally = Some(new Tally(overlay, live.files, live.bytes, live.removedAt.result()))
    kept = keeper.flatMap(_.result).map { case (adds, removes) => new Kept(overlay, adds, removes) }
    rows.result()
  }

  /** The checkpoint's own live files (not its sidecars') whose keys `overlay` does not touch, as
    * [[nonFileRows]] tallied them against it: a lower bound of the snapshot's, read for free.
    */
  def ownLiveFiles(overlay: FileOverlay): Option[Long] =
    tally.filter(_.overlay eq overlay).map(_.files)

  /** Live files, their size and unexpired tombstones among the checkpoint's file actions (its
    * `sidecars` included) whose keys `overlay` does not touch; None when they cannot be counted
    * here: [[nonFileRows]] was not read first, the sidecars are past the budget, or a read failed.
    * The checkpoint's own files are the tally of [[nonFileRows]] when it was read against the same
    * overlay; only sidecars are read here then.
    */
  def counts(sidecars: Seq[String], overlay: FileOverlay, cutoff: Long): Option[FileCounts] =
    sidecarBytes.filter(_ + cp.sizeInBytes <= maxBytes).flatMap { _ =>
      attempt {
        val sidecarPaths = sidecars.map(FileState.sidecarPath(segment, _))
        val (own, paths) = tally.filter(_.overlay eq overlay) match {
          case Some(t) =>
            val unexpired = t.removedAt.count(_ > cutoff).toLong
            (FileCounts(t.files, t.bytes, unexpired), sidecarPaths)
          case None => (FileCounts.zero, cp.files.map(_.file.path) ++ sidecarPaths)
        }
        val live = new CheckpointCounter(table.root, overlay)
        each(paths, ActionSchemas.leanFileActions) { r =>
          live.add(r.getAs[Row](0), r.getAs[Row](1))
        }
        own + FileCounts(live.files, live.bytes, live.removedAt.result().count(_ > cutoff).toLong)
      }
    }

  /** Calls `f(add, remove)` (lean, one of them null) with every file action of the checkpoint and
    * of its `sidecars` whose key `overlay` (the tail's) does not touch: the checkpoint's share of
    * the snapshot's reconciled files, streamed, nothing held. None when they cannot be read here
    * (`f` may have seen some of them then): [[nonFileRows]] was not read first, the sidecars are
    * past the budget, or a read failed for a reason of the file's. The checkpoint's own actions are
    * those [[nonFileRows]] kept when it kept them against `overlay` (then released): only its
    * sidecars are read then.
    */
  def eachFile(sidecars: Seq[String], overlay: FileOverlay)(f: (Row, Row) => Unit): Option[Unit] =
    eachAction(sidecars, overlay, ActionSchemas.leanFileActions, 2, 2, takeKept(overlay))(f)

  /** As [[eachFile]], with each add and remove whole ([[ActionSchemas.fileActions]]): what a
    * checkpoint of the snapshot writes.
    */
  def eachFullFile(sidecars: Seq[String], overlay: FileOverlay)(
      f: (Row, Row) => Unit
  ): Option[Unit] =
    eachAction(
      sidecars,
      overlay,
      ActionSchemas.fileActions,
      DriverCheckpoint.addDvIndex,
      DriverCheckpoint.removeDvIndex
    )(f)

  /** Calls `f` with every add (whole, as [[ActionSchemas.add]]) of the checkpoint and of its
    * `sidecars` whose key `overlay` (the tail's) does not touch: the live files the checkpoint
    * gives the snapshot, streamed. None when they cannot be read here, as for [[eachFile]].
    */
  def eachAdd(sidecars: Seq[String], overlay: FileOverlay)(f: Row => Unit): Option[Unit] =
    eachAction(sidecars, overlay, DriverCheckpoint.adds, DriverCheckpoint.addDvIndex, -1) {
      (add, _) => f(add)
    }

  /** Calls `f(add, remove)` with the file actions of the checkpoint and its `sidecars` as rows of
    * `schema` (`add`, then `remove` if it has one; their deletion vectors at `addDv` and
    * `removeDv`), those whose key `overlay` touches left out; None as for [[eachFile]]. With `own`,
    * the checkpoint's own actions are those, and only the sidecars are read.
    */
  private def eachAction(
      sidecars: Seq[String],
      overlay: FileOverlay,
      schema: StructType,
      addDv: Int,
      removeDv: Int,
      own: Option[Kept] = None
  )(f: (Row, Row) => Unit): Option[Unit] =
    sidecarBytes.filter(_ + cp.sizeInBytes <= maxBytes).flatMap { _ =>
      attempt {
        val sidecarPaths = sidecars.map(FileState.sidecarPath(segment, _))
        val paths = if (own.isEmpty) cp.files.map(_.file.path) ++ sidecarPaths else sidecarPaths
        own.foreach { k =>
          k.adds.foreach(f(_, null))
          k.removes.foreach(f(null, _))
        }
        val (addReplaced, removeReplaced) =
          (
            new ReplacedByOverlay(table.root, overlay, addDv),
            new ReplacedByOverlay(table.root, overlay, removeDv)
          )
        val removes = schema.length > 1
        each(paths, schema) { r =>
          val add = r.getAs[Row](0)
          val remove = if (removes) r.getAs[Row](1) else null
          if (add != null && !add.isNullAt(0)) { if (!addReplaced(add)) f(add, null) }
          else if (remove != null && !remove.isNullAt(0) && !removeReplaced(remove)) {
            f(null, remove)
          }
        }
      }
    }

  /** The file being read, for naming it in a storage failure. */
  @volatile private var reading: String = cp.files.head.file.path

  /** Calls `f` with every row of `files` (checkpoint parts, or sidecars) as a row of `schema`, or
    * of `narrow`'s schema in the parquet row groups it covers ([[DriverParquet.foreach]]).
    */
  private def each(
      files: Seq[String],
      schema: StructType,
      narrow: Option[(StructType, BlockMetaData => Boolean)] = None
  )(f: Row => Unit): Unit =
    if (cp.isJson) {
      val parser = new LineParser(schema, Tail.timeZone(spark))
      val top = cp.files.map(c => c.file.path -> c).toMap
      files.foreach { file =>
        reading = file
        top.get(file) match {
          case Some(part) =>
            LogLineReader.readOnDriver(table, Seq(cp.version -> part.file)).foreach { line =>
              f(parser.parse(line.getString(3)).getOrElse {
                throw new DriverParquet.Unsupported(s"line ${line.getLong(1) + 1} of $file")
              })
            }
          case None => DriverParquet.foreach(table, file, schema)(f) // a sidecar
        }
      }
    } else {
      val listed = cp.files.map(c => c.file.path -> c.file).toMap
      files.foreach { file =>
        reading = file
        DriverParquet.foreach(table, file, schema, listed.get(file), narrow = narrow)(f)
      }
    }

  /** `body`, or None when reading a file failed for a reason of the file's (then Spark reads the
    * checkpoint instead, and fails as a user should see it if the checkpoint is at fault). A
    * storage failure (a missing file, an I/O error of the file system) is LOG_READ_FAILED naming
    * the file, as Spark's read would end; an interruption propagates as it is.
    */
  private def attempt[T](body: => T): Option[T] =
    DriverCheckpoint.attempt(spark, reading, cp, "")(body)
}

private[txlog] object DriverCheckpoint {
  private val log = LoggerFactory.getLogger(getClass)

  /** Checkpoints (all parts, plus sidecars) of at most this many bytes are read on the driver; past
    * it, by Spark jobs; 0 turns the driver read off. Default: 32 MiB (about 300,000 files with
    * stats: past it a job's two tasks read faster than the driver's one thread), or the tail's
    * budget, [[LogLineReader.LocalReadMaxBytesConf]], when smaller, so that a session reading every
    * tail with Spark reads checkpoints so too.
    */
  val MaxBytesConf: String = TxlogConf.ReplayMaxDriverCheckpointBytes.key

  private val DefaultMaxBytes = 32L << 20

  /** For tests: a checkpoint the driver read fails instead of falling back to Spark. */
  val StrictConf: String = TxlogConf.TestingDriverCheckpointStrict.key

  /** A checkpoint row's non-file actions, its sidecar's path and size, and its lean file actions:
    * everything a load and its counts read, in one pass.
    */
  private[replay] val stateAndFiles: StructType = StructType(
    ActionSchemas.nonFileActions
      .add(
        "sidecar",
        ActionSchemas.sidecar.fields
          .filter(f => Set("path", "sizeInBytes")(f.name))
          .foldLeft(new StructType())(_ add _)
      )
      .fields ++ ActionSchemas.leanFileActions.fields
  )

  /** A checkpoint row's add action, whole. */
  private val adds: StructType = StructType(Seq(ActionSchemas.fileActions("add")))

  private val addDvIndex: Int = ActionSchemas.add.fieldIndex("deletionVector")
  private val removeDvIndex: Int = ActionSchemas.remove.fieldIndex("deletionVector")

  /** The reader of `segment`'s checkpoint on the driver, if it has one within the budget (a JSON
    * one within [[LogLineReader.LocalReadMaxBytesConf]] too); with `keepFiles`, one that keeps the
    * file actions its load reads for one later pass over them (see the class).
    */
  def of(
      spark: SparkSession,
      segment: LogSegment,
      keepFiles: Boolean = false
  ): Option[DriverCheckpoint] = {
    val max = TxlogConf.ReplayMaxDriverCheckpointBytes
      .get(spark)
      .getOrElse(math.min(DefaultMaxBytes, LogLineReader.localReadMaxBytes(spark)))
    segment.checkpoint
      .filter(cp => max > 0 && cp.sizeInBytes <= max)
      .filter(cp => !cp.isJson || LogLineReader.readsOnDriver(spark, cp.sizeInBytes))
      .map { cp =>
        val keep = if (keepFiles) DriverBudgets.maxReplayBytes(spark) else 0L
        new DriverCheckpoint(spark, segment, cp, max, keep)
      }
  }

  private def strict(spark: SparkSession): Boolean =
    TxlogConf.TestingDriverCheckpointStrict.get(spark)

  /** The leaves [[NonFileState.checkpointRows]] tests: a row group whose statistics show all of
    * them null holds no non-file action.
    */
  private val nonFileLeaves =
    Seq(
      "protocol.minReaderVersion",
      "metaData.id",
      "txn.appId",
      "domainMetadata.domain",
      "sidecar.path"
    )

  /** Whether `block`'s statistics count every leaf of [[nonFileLeaves]] as null in all its rows (no
    * statistics: it may hold non-file actions).
    */
  private[replay] def holdsNoState(block: BlockMetaData): Boolean =
    !block.getColumns.asScala.exists { c =>
      nonFileLeaves.contains(c.getPath.toDotString) && {
        val stats = c.getStatistics
        stats == null || !stats.isNumNullsSet || stats.getNumNulls < block.getRowCount
      }
    }

  /** `body`, or None when reading a file of `cp` on the driver failed for a reason of the file's
    * (then Spark reads the checkpoint instead, and fails as a user should see it if the checkpoint
    * is at fault). A storage failure (a missing file, an I/O error of the file system) is
    * LOG_READ_FAILED naming the file being read, as Spark's read would end; an interruption
    * propagates as it is; with [[StrictConf]], any failure does.
    */
  private[replay] def attempt[T](
      spark: SparkSession,
      reading: => String,
      cp: CheckpointInstance,
      what: String
  )(body: => T): Option[T] =
    try Some(body)
    catch {
      case e @ (_: InterruptedException | _: InterruptedIOException |
          _: ClosedByInterruptException) =>
        throw e
      case e: TxlogException => throw e
      case NonFatal(e) if ReadErrors.storageFailure(e) =>
        val detail = s"${e.getClass.getSimpleName}: ${String.valueOf(e.getMessage)}".take(400)
        throw TxlogErrors.logReadFailed(reading, Some(cp.version), detail, e)
      case NonFatal(e) if !strict(spark) =>
        log.debug(s"Reading $what${cp.files.head.file.path} with Spark instead", e)
        None
    }
}
