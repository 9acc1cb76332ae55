package txlog.repair

import java.net.URI
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._
import scala.util.Try

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.Row

import txlog.{DeltaLog, Fixtures, RepairResult, SparkSuite, TxlogException}
import txlog.restore.RestoreTestKit

/** REPAIR on copies of fixtures with one fault injected each: a dry run lists the actions and
  * changes nothing; the repair then makes delta-spark read the table as it read the intact copy
  * (or, for lost files, without those files), and `validate` finds no error afterwards. The
  * expected values come from delta-spark (its reading of the intact copy, the `_last_checkpoint`
  * and `.crc` files it wrote) and from the fault the test made.
  */
class RepairSuite extends SparkSuite with RestoreTestKit with txlog.testing.InTurn {
  override protected def turns = 3 // make test runs its inTurn tests in turn
  private val mapper = new ObjectMapper()

  private def log(t: Path) = DeltaLog.forTable(spark, t.toString)
  private def logDir(t: Path) = t.resolve("_delta_log")
  private def commit(t: Path, v: Long) = logDir(t).resolve(f"$v%020d.json")

  /** Every file under the table (relative path -> bytes hash and size), to show nothing changed. */
  private def tree(t: Path): Map[String, (Long, Int)] =
    Files
      .walk(t)
      .iterator()
      .asScala
      .filter(Files.isRegularFile(_))
      .map { p =>
        val b = Files.readAllBytes(p)
        t.relativize(p).toString -> (b.length.toLong, java.util.Arrays.hashCode(b))
      }
      .toMap

  /** (action, version, file, rule, done) of each action. */
  private def actions(r: RepairResult): Seq[(String, Option[Long], String, String, Boolean)] =
    r.actions.collect().toSeq.map { row: Row =>
      (
        row.getAs[String]("action"),
        Option(row.getAs[java.lang.Long]("version")).map(_.longValue),
        row.getAs[String]("file"),
        row.getAs[String]("rule"),
        row.getAs[Boolean]("done")
      )
    }

  private def errors(t: Path): Seq[String] =
    log(t).validate().where("severity = 'error'").collect().toSeq.map(_.toString)

  /** Runs a dry run (checked to change nothing), then the repair; returns both results. */
  private def dryThenRepair(
      t: Path,
      force: Boolean = false,
      withDv: Boolean = false
  ): (RepairResult, RepairResult) = {
    val before = tree(t)
    val plan = log(t).repair(force = force, removeFilesWithMissingDv = withDv)
    assert(plan.dryRun)
    assert(tree(t) === before, "a dry run changed files")
    assert(actions(plan).forall(!_._5))
    val done = log(t).repair(dryRun = false, force = force, removeFilesWithMissingDv = withDv)
    assert(!done.dryRun)
    (plan, done)
  }

  private def truncate(file: Path): Array[Byte] = {
    val bytes = Files.readAllBytes(file)
    Files.write(file, bytes.take(bytes.length / 2))
    bytes.take(bytes.length / 2)
  }

  private def json(file: Path): ObjectNode = mapper.readTree(file.toFile).asInstanceOf[ObjectNode]

  Seq(
    (
      "golden/basic-with-inserts-deletes-checkpoint",
      "00000000000000000010.checkpoint.parquet",
      "classic"
    ),
    (
      "golden/multi-part-checkpoint",
      "00000000000000000001.checkpoint.0000000002.0000000002.parquet",
      "multipart"
    ),
    (
      "golden/v2-checkpoint-json",
      "00000000000000000002.checkpoint.6374b053-df23-479b-b2cf-" +
        "c9c550132b49.json",
      "v2"
    )
  ).foreach { case (name, file, kind) =>
    inTurn(s"a truncated $kind checkpoint is set aside and written again ($name)") {
      assume(Fixtures.available, Fixtures.skipMessage)
      val t = Fixtures.copy(name, tempDir())
      val intact = refView(copyTable(t, "intact"))
      val intactRows = rows(copyTable(t, "intact-rows"))
      val cut = truncate(logDir(t).resolve(file))
      val (plan, done) = dryThenRepair(t)
      val v = file.take(20).toLong
      assert(
        actions(plan).map(a => (a._1, a._2)).toSet ===
          Set("set-aside-checkpoint" -> Some(v), "write-checkpoint" -> Some(v))
      )
      assert(plan.numCheckpointsRewritten === 1 && done.numCheckpointsRewritten === 1)
      assert(actions(done).exists(a => a._1 == "write-checkpoint" && a._5))
      // The fault is gone: a fresh checkpoint of the same kind at that version, the cut file aside.
      assert(Files.readAllBytes(Path.of(new URI(done.setAsideDir.get)).resolve(file)) === cut)
      val again = Files
        .list(logDir(t))
        .iterator()
        .asScala
        .map(_.getFileName.toString)
        .filter(_.startsWith(f"$v%020d.checkpoint"))
        .toSeq
      assert(again.nonEmpty && !again.contains(file) || kind != "v2", again)
      assert(again.size === (if (kind == "multipart") 2 else 1), again)
      assert(refView(t).copy(tombstones = Set.empty) === intact.copy(tombstones = Set.empty))
      assert(rows(t) === intactRows)
      assert(errors(t).isEmpty)
      assert(log(t).repair().isClean)
    }
  }

  Seq(
    ("golden/basic-with-inserts-deletes-checkpoint", """{"version":99,"size":13}"""),
    ("golden/multi-part-checkpoint", "{not json"),
    ("golden/v2-checkpoint-parquet", """{"version":2,"size":9,"checksum":"00"}""")
  ).foreach { case (name, broken) =>
    inTurn(s"_last_checkpoint '$broken' is rebuilt as delta-spark wrote it ($name)") {
      assume(Fixtures.available, Fixtures.skipMessage)
      val t = Fixtures.copy(name, tempDir())
      val file = logDir(t).resolve("_last_checkpoint")
      val theirs = json(file)
      val intact = refView(copyTable(t, "intact"))
      Files.writeString(file, broken)
      val (plan, done) = dryThenRepair(t)
      assert(actions(plan).map(_._1) === Seq("write-last-checkpoint"))
      assert(plan.lastCheckpointRewritten && done.lastCheckpointRewritten)
      val ours = json(file)
      Seq("version", "size", "parts", "sizeInBytes", "numOfAddFiles").foreach { f =>
        assert(ours.get(f) === theirs.get(f), f)
      }
      assert(refView(t) === intact)
      assert(errors(t).isEmpty)
      assert(log(t).repair().isClean)
    }
  }

  inTurn("a tampered .crc is set aside and written again as delta-spark wrote it") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t =
      Fixtures.copy("golden/commit-info-containing-arbitrary-operationParams-types", tempDir())
    val crc = logDir(t).resolve(f"${2}%020d.crc")
    val theirs = json(crc)
    val intact = refView(copyTable(t, "intact"))
    Files.writeString(crc, mapper.writeValueAsString(json(crc).put("numFiles", 3L)))
    val (plan, done) = dryThenRepair(t)
    assert(
      actions(plan).map(a => (a._1, a._2)) ===
        Seq("set-aside-checksum" -> Some(2L), "write-checksum" -> Some(2L))
    )
    assert(done.numChecksumsRewritten === 1)
    val ours = json(crc)
    Seq("tableSizeBytes", "numFiles", "numMetadata", "numProtocol").foreach { f =>
      assert(ours.get(f) === theirs.get(f), f)
    }
    assert(refView(t) === intact)
    assert(errors(t).isEmpty)
  }

  /** The first add of a commit: its path. */
  private def firstAdd(file: Path): String = Files
    .readAllLines(file)
    .asScala
    .find(_.contains("\"add\""))
    .map(l => mapper.readTree(l).get("add").get("path").asText())
    .get

  inTurn("a missing data file is removed by an FSCK commit; delta-spark reads the rest") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/data-reader-partition-values", tempDir())
    val path = firstAdd(commit(t, 0))
    val rel = new URI(path).getPath // the view's paths are decoded
    val data = t.resolve(rel)
    val lostRows = spark.read.parquet(data.toString).count()
    val intact = refView(copyTable(t, "intact"))
    val intactCount = rows(copyTable(t, "intact-rows")).size
    Files.delete(data)
    assert(Try(rows(t)).isFailure, "delta-spark read a table with a missing file")
    // One of 3 live files is more than 10%: reported by a dry run, refused, unless forced.
    val capped = log(t).repair()
    assert(capped.numNotRepairable === 1 && capped.numFilesRemoved === 1)
    assert(
      capped.actions
        .where("action = 'not-repairable'")
        .collect()
        .head
        .getAs[String]("detail")
        .contains("1 of the 3 live files")
    )
    capped.unpersist()
    val refused = intercept[TxlogException](log(t).repair(dryRun = false))
    assert(refused.errorClass === "REPAIR_TOO_MANY_LOST_FILES")
    assert(refView(t).version === intact.version, "a refused repair committed")
    val (plan, done) = dryThenRepair(t, force = true)
    assert(
      actions(plan).map(a => (a._1, a._3, a._4)) ===
        Seq(("remove-file", path, "missing-data-file"))
    )
    assert(done.numFilesRemoved === 1 && done.commitVersion === Some(intact.version + 1))
    assert(done.sizeOfFilesRemoved === intact.live.find(_._1 == rel).get._3)
    val after = refView(t)
    assert(after.version === intact.version + 1)
    assert(after.live === intact.live.filterNot(_._1 == rel))
    assert(rows(t).size === intactCount - lostRows)
    assert(lastCommit(t)._1 === "FSCK")
    assert(lastCommit(t)._3("numRemovedFiles") === "1")
    assert(errors(t).isEmpty)
  }

  test("a file whose deletion vector file is missing: reported; removed only when asked") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("kernel/basic-dv-no-checkpoint", tempDir())
    val intact = refView(copyTable(t, "intact"))
    val dv = Files.list(t).iterator().asScala.find(_.getFileName.toString.startsWith("deletion_"))
    Files.delete(dv.get)
    val withDv = intact.live.filter(_._2.nonEmpty).map(_._1)
    assert(withDv.nonEmpty)
    // By default the data file (and its surviving rows) stays, reported.
    val kept = log(t).repair(dryRun = false, force = true)
    assert(kept.numFilesRemoved === 0 && kept.commitVersion.isEmpty)
    assert(kept.numNotRepairable === withDv.size)
    assert(
      actions(kept).map(a => (a._1, a._3, a._4)).toSet ===
        withDv.map(p => ("not-repairable", p, "missing-dv-file"))
    )
    assert(kept.actions.collect().forall(_.getAs[String]("detail").contains("is kept")))
    kept.unpersist()
    assert(refView(t).version === intact.version)
    val (plan, done) = dryThenRepair(t, force = true, withDv = true)
    assert(
      actions(plan).map(a => (a._1, a._3, a._4)).toSet ===
        withDv.map(p => ("remove-file", p, "missing-dv-file"))
    )
    assert(done.numFilesRemoved === withDv.size)
    assert(refView(t).live === intact.live.filterNot(f => withDv(f._1)))
    assert(rows(t).nonEmpty)
    assert(errors(t).isEmpty)
  }

  test("a deleted commit is reported as not repairable and nothing is written") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/basic-with-inserts-deletes-checkpoint", tempDir())
    Files.delete(commit(t, 3))
    val before = tree(t)
    val (plan, done) = dryThenRepair(t)
    assert(
      actions(plan).map(a => (a._1, a._2, a._4)) ===
        Seq(("not-repairable", Some(3L), "version-contiguity"))
    )
    assert(done.numNotRepairable === 1 && done.commitVersion.isEmpty && done.setAsideDir.isEmpty)
    assert(tree(t) === before)
  }

  test("a truncated checkpoint no commits rebuild is left in place and reported") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = Fixtures.copy("golden/checkpoint", tempDir())
    (0L to 9L).foreach(v => Files.delete(commit(t, v)))
    truncate(logDir(t).resolve("00000000000000000010.checkpoint.parquet"))
    val before = tree(t)
    val (plan, done) = dryThenRepair(t)
    val found = actions(done)
    assert(
      found.exists(a =>
        a._1 == "not-repairable" && a._2.contains(10L) &&
          a._4 == "checkpoint-unreadable"
      ),
      found
    )
    assert(!found.exists(a => a._1 == "set-aside-checkpoint" || a._1 == "remove-file"), found)
    assert(plan.numNotRepairable >= 1 && done.numCheckpointsRewritten === 0)
    assert(tree(t) === before)
  }

  Seq(
    "golden/basic-with-inserts-deletes-checkpoint",
    "golden/multi-part-checkpoint",
    "golden/v2-checkpoint-parquet",
    "kernel/basic-dv-with-checkpoint",
    "golden/commit-info-containing-arbitrary-operationParams-types"
  ).foreach { name =>
    inTurn(s"an intact table has nothing to repair and is left as it is ($name)") {
      assume(Fixtures.available, Fixtures.skipMessage)
      val t = Fixtures.copy(name, tempDir())
      val before = tree(t)
      val (plan, done) = dryThenRepair(t)
      assert(plan.isClean, actions(plan).mkString("\n"))
      assert(done.isClean && done.commitVersion.isEmpty)
      assert(tree(t) === before)
    }
  }
}
