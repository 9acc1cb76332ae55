package txlog.repair

import scala.collection.mutable.ArrayBuffer
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession

import txlog.{Snapshot, TxlogException}
import txlog.checkpoint.CheckpointWriter
import txlog.checksum.ChecksumWriter
import txlog.log.{CheckpointInstance, LogListing, LogSegment}
import txlog.protocol.CheckpointNaming
import txlog.inspect.{Finding, ListingRules, Rules, StateRules, Validator}
import txlog.replay.SnapshotLoader
import txlog.table.TableContext

/** Repairs of the log's own files, by validate's rules, in this order (each step sees the log as
  * the previous one left it; a dry run predicts it):
  *
  *   1. checkpoints unreadable, or disagreeing with a trusted replay of the commits they cover
  *      (from commit 0, or from an older checkpoint that is itself trusted: it agrees with such a
  *      replay or with its `.crc`): set aside, and written again of the same kind from the commits.
  *      A mismatch with an untrusted replay proves nothing (the older checkpoint may be the wrong
  *      one), and a checkpoint no contiguous commits rebuild cannot be replaced: both are left in
  *      place and reported. When writing the replacement fails, the old one is moved back;
  *   1. version checksum files that disagree with the replay of their version: set aside and
  *      written again;
  *   1. `_last_checkpoint` malformed, with a wrong checksum, naming no checkpoint or an older one
  *      than the newest: written again from the newest checkpoint (deleted if none is left).
  *
  * An existing commit is never touched. The driver holds the listing and the findings: at most a
  * few per log file.
  */
private[txlog] final class LogRepairs(
    ctx: TableContext,
    aside: SetAside,
    dryRun: Boolean,
    step: Repair.Steps
) {
  import RepairAction._

  private val spark = ctx.spark
  private val table = ctx.table
  val actions: ArrayBuffer[RepairAction] = ArrayBuffer.empty

  /** Checkpoints found bad and not rebuildable: they stay, and nothing points at them. */
  private var stuck: Set[String] = Set.empty

  private def load(l: LogListing)(v: Long): Snapshot =
    SnapshotLoader.load(spark, l, LogSegment.build(l, Some(v)))

  private def add(
      action: String,
      version: Option[Long],
      file: Option[String],
      rule: String,
      detail: String,
      done: Boolean = !dryRun
  ): Unit = actions += RepairAction(action, version, file, rule, detail, done)

  /** Checkpoints to set aside and write again, with the rule that found each, by version. */
  private var fixable: Seq[(Long, Seq[CheckpointInstance], String)] = Nil

  /** Step 1's plan on `listing` (complete): the bad checkpoints, those nothing rebuilds reported.
    * Returns the listing without the bad checkpoints.
    */
  def planCheckpoints(listing: LogListing): LogListing = {
    val bad = step("check checkpoints")(StateRules.checkpoints(spark, listing))
      .filter(_.severity == Finding.Error)
    val byFile = bad.groupBy(_.file.orNull)
    val found = listing.checkpoints.filter(cp => byFile.contains(cp.files.head.file.path))
    val trust = new CheckpointTrust(spark, listing, found.toSet)
    // A mismatch proves the checkpoint wrong only when what it was compared with is trusted.
    val (badCps, unproven) = found.partition { cp =>
      byFile(cp.files.head.file.path).exists(_.rule != Rules.CheckpointMismatch) ||
      trust.sourceTrusted(cp)
    }
    // A checkpoint found bad that stays where it is, reported with why it is not rebuilt.
    def leftInPlace(cp: CheckpointInstance, why: String): Unit = {
      val f = byFile(cp.files.head.file.path).head
      val path = Some(cp.files.head.file.path)
      add(NotRepairable, Some(cp.version), path, f.rule, s"${f.detail} $why", done = false)
    }
    unproven.foreach(
      leftInPlace(
        _,
        "It was compared with a replay from an older checkpoint that nothing verifies (no " +
          "commit 0 before it, no .crc agreeing with it), so either may be wrong: the " +
          "checkpoint is left in place."
      )
    )
    val clean = listing.copy(checkpoints = listing.checkpoints.filterNot(badCps.contains))
    def rebuildable(v: Long) =
      try { LogSegment.build(clean, Some(v)); true }
      catch { case _: TxlogException => false }
    val (ok, left) = badCps.partition(cp => rebuildable(cp.version))
    stuck = (left ++ unproven).map(_.files.head.file.path).toSet
    left.foreach(
      leftInPlace(
        _,
        "No older checkpoint with contiguous commits, nor the commits from 0, rebuild this " +
          "version: the checkpoint is left in place."
      )
    )
    fixable = ok.groupBy(_.version).toSeq.sortBy(_._1).map { case (v, cps) =>
      (v, cps, byFile(cps.head.files.head.file.path).head.rule)
    }
    clean
  }

  /** Step 1: sets the planned checkpoints aside and writes them again (in a dry run, lists it). */
  def checkpoints(): Unit = fixable.foreach { case (v, cps, rule) =>
    val moved = cps.flatMap(cp => setAside(cp, rule))
    val (kind, options) = kindOf(cps.head)
    val written =
      if (dryRun) None
      else {
        val r =
          try
            step(s"write checkpoint $v") {
              val snap = ctx.detached().snapshots.latestOr(Some(v))
              CheckpointWriter.write(spark, snap, Some(kind), options)
            }
          catch {
            case NonFatal(e) =>
              // Leave the log as it was: the old checkpoint back in place.
              moved.foreach { case (from, to) =>
                try aside.moveBack(to, from)
                catch { case NonFatal(f) => e.addSuppressed(f) }
              }
              throw e
          }
        Some(r.files.head)
      }
    add(
      WriteCheckpoint,
      Some(v),
      written,
      rule,
      s"A $kind checkpoint of version $v written from the commits" +
        (if (dryRun) " (would be)." else ".")
    )
  }

  /** Sets `cp`'s files aside (in a dry run, says so); returns (from, to) of each moved file. */
  private def setAside(cp: CheckpointInstance, rule: String): Seq[(Path, Path)] =
    cp.files.flatMap { f =>
      val from = new Path(f.file.path)
      val to = if (dryRun) None else Some(aside.move(from))
      val detail = to.fold(s"Would be moved to ${aside.dir}.")(t => s"Moved to $t.")
      add(SetAsideCheckpoint, Some(cp.version), Some(f.file.path), rule, detail)
      to.map(from -> _)
    }

  /** The kind and options that write a checkpoint like `cp` again. */
  private def kindOf(cp: CheckpointInstance): (String, Map[String, String]) = cp.naming match {
    case CheckpointNaming.Classic         => ("classic", Map.empty)
    case CheckpointNaming.MultiPart(_, n) => ("multipart", Map("parts" -> n.toString))
    case CheckpointNaming.Uuid(_, format) => ("v2", Map("format" -> format))
  }

  /** Step 2 on `listing` (as step 1 left the log). */
  def checksums(listing: LogListing): Unit = {
    val bad = step("check version checksums")(StateRules.checksums(listing, load(listing)))
      .filter(_.severity == Finding.Error)
    bad.groupBy(_.version.get).toSeq.sortBy(_._1).foreach { case (v, fs) =>
      val file = fs.head.file.get
      val why = fs.map(_.detail).mkString(" ")
      add(
        SetAsideChecksum,
        Some(v),
        Some(file),
        fs.head.rule,
        if (dryRun) s"$why Would be moved to ${aside.dir}."
        else s"$why Moved to ${aside.move(new Path(file))}."
      )
      val written =
        if (dryRun) None
        else Some(step(s"write checksum $v")(ChecksumWriter.write(ctx.detached().snapshots.at(v))))
      add(
        WriteChecksum,
        Some(v),
        written.map(_.toString),
        fs.head.rule,
        s"The version checksum of version $v computed from its replay" +
          (if (dryRun) " (would be)." else ".")
      )
    }
  }

  /** Step 3: `listing` is the log as steps 1 and 2 left it (in a dry run, the log as it is); `good`
    * the checkpoints that are (or will be) there and sound.
    */
  def lastCheckpoint(listing: LogListing, good: Seq[CheckpointInstance]): Unit = {
    val found = ListingRules.lastCheckpoint(listing)
    if (found.nonEmpty) {
      val newest = good.filterNot(cp => stuck(cp.files.head.file.path)).lastOption
      val rule = found.head.rule
      val why = found.map(_.detail).mkString(" ")
      newest match {
        case Some(cp) =>
          if (!dryRun) step("write _last_checkpoint") {
            LastCheckpointRebuild.write(table, LastCheckpointRebuild.of(spark, table, cp))
          }
          add(
            WriteLastCheckpoint,
            Some(cp.version),
            found.head.file,
            rule,
            s"$why It ${if (dryRun) "would name" else "now names"} checkpoint ${cp.version}."
          )
        case None =>
          if (!dryRun) LastCheckpointRebuild.delete(table)
          add(
            DeleteLastCheckpoint,
            found.head.version,
            found.head.file,
            rule,
            s"$why No checkpoint is left for it to name; readers list the whole log."
          )
      }
    }
  }
}

private[txlog] object LogRepairs {

  /** Errors that stop repair: the table is refused or unreachable. */
  def refused(e: TxlogException): Boolean = Validator.Refusals(e.errorClass)
}
