package txlog.txn

import java.nio.file.{Path => NPath}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.functions.{col, lit, regexp_replace}

import txlog.{DeltaLog, Oracle, SparkSuite}
import txlog.testing.DeltaRsScript

/** txlog commits on a table delta-rs wrote (three appends and a delta-rs checkpoint): delta-spark
  * and delta-rs then both read the new version as the old one minus the removed file plus the added
  * one, and as txlog reads it. delta-rs runs in the project's virtualenv
  * (`tests/scripts/delta_rs_table.py`); without it the test is canceled.
  */
class DeltaRsTablesSuite extends SparkSuite {

  /** Runs the script's commands on `table` in one process (one start of Python and delta-rs). */
  private def deltaRs(commands: Seq[String], table: NPath): String =
    DeltaRsScript.run(commands.map(_ -> table.toString))

  /** delta-rs's latest version and its files as (qualified path, size, partition values), after the
    * script's `before` commands.
    */
  private def deltaRsView(
      table: NPath,
      before: Seq[String] = Nil
  ): (Long, Set[(String, Long, Map[String, String])]) = {
    val doc = new ObjectMapper().readTree(deltaRs(before :+ "read", table))
    val conf = spark.sessionState.newHadoopConf()
    val files = doc.get("files").elements().asScala.map { f =>
      val p = new Path(f.get(0).asText)
      val pv = f.get(2).fields().asScala.map(e => e.getKey -> e.getValue.asText).toMap
      (p.getFileSystem(conf).makeQualified(p).toString, f.get(1).asLong, pv)
    }
    (doc.get("version").asLong, files.toSet)
  }

  test("txlog commits on a table delta-rs wrote; delta-spark and delta-rs read it alike") {
    assume(DeltaRsScript.available, DeltaRsScript.skipMessage)
    val dir = tempDir("delta-rs").resolve("t")
    val path = dir.toString
    val (v0, rsBefore) = deltaRsView(dir, before = Seq("write"))
    val before = Oracle.reference(spark, path, None)
    assert(before.version === v0)
    assert(before.live.map(f => (f._1, f._3, f._4)) === rsBefore, "delta-spark reads delta-rs's")

    val log = DeltaLog.forTable(spark, path)
    val txn = log.startTransaction()
    val victim = txn.readFiles(col("partitionValues_parsed.part") === "b")
    txn.removeFiles(victim)
    txn.addFiles(
      victim.select(
        regexp_replace(col("path"), "\\.parquet$", "-copy.parquet").as("path"),
        col("size"),
        col("partitionValues"),
        col("modificationTime"),
        lit(true).as("dataChange")
      )
    )
    val r = txn.commit("UPDATE")
    assert(r.committed && r.version === v0 + 1)

    val (v1, rsAfter) = deltaRsView(dir)
    val after = Oracle.reference(spark, path, None)
    assert(v1 === r.version && after.version === r.version)
    assert(after.live.map(f => (f._1, f._3, f._4)) === rsAfter, "delta-spark and delta-rs agree")
    val gone = rsBefore -- rsAfter
    val added = rsAfter -- rsBefore
    assert(gone.size === 1 && gone.head._3 === Map("part" -> "b"))
    assert(added.size === 1 && added.head._1.endsWith("-copy.parquet"))
    assert((added.head._2, added.head._3) === (gone.head._2, gone.head._3))
    assert((rsBefore intersect rsAfter).size === rsBefore.size - 1)
    assert(Oracle.txlog(spark, path, None) === after)
  }
}
