package txlog.txn

import java.net.URI

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.Row
import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.functions.{col, lit}

import txlog.{DeltaLog, Fixtures, Oracle, SparkSuite}

/** txlog commits on top of copies of tables delta-spark wrote (partitioned, column mapping,
  * deletion vectors, V2 checkpoints): delta-spark then reads the new version as the old one minus
  * the removed file plus the added one, exactly as txlog reads it, and accepts its checksum.
  */
class CommitOnFixturesSuite extends SparkSuite {

  private val tables = Seq(
    "golden/data-reader-partition-values",
    "kernel/data-reader-partition-values-column-mapping-name",
    "spark/table-with-dv-small",
    "kernel/kernel-pagination-v2-checkpoint-parquet",
    "golden/basic-with-inserts-deletes-checkpoint"
  )

  tables.foreach { name =>
    test(s"txlog commits on a copy of $name; delta-spark reads it alike") {
      assume(Fixtures.available, Fixtures.skipMessage)
      val dir = Fixtures.copy(name, tempDir("fixture-commit"))
      val path = dir.toString
      val before = Oracle.reference(spark, path, None)
      val log = DeltaLog.forTable(spark, path)
      val txn = log.startTransaction()
      // The first live file (by path) is rewritten: removed, and a new file added in its place.
      val victim: Row =
        txn.readFiles().orderBy("path").limit(1).collect().head
      val removed = txn
        .readFiles(col("path") === victim.getAs[String]("path"))
        .orderBy("path")
        .limit(1)
      txn.removeFiles(removed)
      txn.addFiles(
        removed.select(
          lit("txlog-added.parquet").as("path"),
          col("size"),
          col("partitionValues"),
          col("modificationTime"),
          lit(true).as("dataChange")
        )
      )
      val r = txn.commit("UPDATE")
      assert(r.committed && r.version === before.version + 1)
      val after = Oracle.reference(spark, path, None)
      // The log's path is a URI-encoded relative path; delta-spark's keys are decoded paths.
      val victimName = new Path(new URI(victim.getAs[String]("path"))).getName
      val gone = before.live -- after.live
      val added = after.live -- before.live
      assert(gone.map(f => new Path(f._1).getName) === Set(victimName))
      assert(added.map(f => new Path(f._1).getName) === Set("txlog-added.parquet"))
      assert(
        (added.head._3, added.head._4) === (gone.head._3, gone.head._4),
        "the added file has the removed one's size and partition values"
      )
      assert((before.live intersect after.live).size === before.live.size - 1)
      assert(after.protocol === before.protocol && after.metadata === before.metadata)
      assert(Oracle.txlog(spark, path, None) === after)
      r.checksum.foreach { _ =>
        RefLog.clearCache()
        val s = RefLog.forTable(spark, path).update()
        assert(s.validateChecksum(Map.empty), s"delta-spark rejects v${r.version}'s checksum")
      }
      info(s"v${r.version}; checksum ${if (r.checksum.isDefined) "written" else "not derivable"}")
    }
  }
}
