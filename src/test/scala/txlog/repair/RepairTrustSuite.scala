package txlog.repair

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import txlog.{DeltaLog, SparkSuite}
import txlog.restore.RestoreTestKit

/** Repair sets a checkpoint aside only when a trusted replay proves it wrong: here the older
  * checkpoint lost a file and the commits before it are gone, so the good newer checkpoint, which
  * disagrees with the replay from the bad one, must stay (replacing it would drop a live file, and
  * vacuum would then delete it). delta-spark's reading of the table is the oracle: unchanged.
  */
class RepairTrustSuite extends SparkSuite with RestoreTestKit {

  test("a checkpoint that disagrees only with an untrusted older checkpoint is left in place") {
    // Five appends, checkpoints at 2 and 4.
    val t = tempDir("repair-trust").resolve("t")
    (0 until 5).foreach { i =>
      val w = spark.range(i * 10, i * 10 + 10).write.format("delta").mode("append")
      (if (i == 0) w.option("delta.checkpointInterval", "2") else w).save(t.toString)
    }
    val logDir = t.resolve("_delta_log")
    val cp2 = logDir.resolve(f"${2}%020d.checkpoint.parquet")
    val cp4 = logDir.resolve(f"${4}%020d.checkpoint.parquet")
    assert(Files.exists(cp2) && Files.exists(cp4))
    // Checkpoint 2 loses one add; commits 0 to 2 and the .crc of version 2 are cleaned up, so
    // nothing can verify it.
    val rows = spark.read.parquet(cp2.toString)
    val lost = rows.where("add IS NOT NULL").select("add.path").head().getString(0)
    val out = tempDir("cp2")
    rows
      .where(s"add IS NULL OR add.path != '$lost'")
      .coalesce(1)
      .write
      .parquet(out.resolve("p").toString)
    val part = Files.list(out.resolve("p")).iterator().asScala.find(_.toString.endsWith(".parquet"))
    Files.copy(part.get, cp2, java.nio.file.StandardCopyOption.REPLACE_EXISTING)
    (0 to 2).foreach { v =>
      Files.delete(logDir.resolve(f"$v%020d.json"))
      Files.deleteIfExists(logDir.resolve(f"$v%020d.crc"))
    }
    val before = refView(t)
    assert(before.live.exists(_._1.endsWith(lost)), "delta-spark reads checkpoint 4")
    val cp4Bytes = Files.readAllBytes(cp4)

    val r = DeltaLog.forTable(spark, t.toString).repair(dryRun = false)
    try {
      val acts = r.actions.collect().map(a => (a.getAs[String]("action"), a.getAs[String]("file")))
      assert(!acts.exists(_._1 == "set-aside-checkpoint"), acts.toSeq)
      assert(
        acts.exists { case (a, f) =>
          a == "not-repairable" && f != null && f.endsWith(cp4.getFileName.toString)
        },
        acts.toSeq
      )
    } finally r.unpersist()
    assert(java.util.Arrays.equals(Files.readAllBytes(cp4), cp4Bytes), "checkpoint 4 was replaced")
    assert(refView(t).live === before.live)
  }
}
