package txlog.oracle

import scala.jdk.CollectionConverters._
import scala.util.{Failure, Success, Try}

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.SparkSession

import txlog.{Fixtures, Refusal, SnapshotView}
import txlog.restore.RestoreOracle

/** delta-spark's RESTORE of a copy of a read-only fixture to one version, as recorded by `make
  * oracle-record` ([[RecordOracles]]): what it returned, what it then reads, and its commit.
  * RestoreFixturesSuite compares txlog's restore of another copy with it (and delta-spark's reading
  * of txlog's restore, live).
  *
  * @param metrics
  *   the metrics RESTORE returned ([[RestoreOracle.MetricNames]])
  * @param rows
  *   the rows of the fixture at the target version, sorted as text
  * @param restoredRows
  *   the rows of the restored copy's latest version
  * @param view
  *   the restored copy's latest snapshot, paths relative to the copy
  * @param commit
  *   the restore commit's operation, parameters and metrics, as its history shows them
  */
final case class RecordedRestore(
    metrics: Map[String, String],
    rows: Seq[String],
    restoredRows: Seq[String],
    view: SnapshotView,
    commit: (String, Map[String, String], Map[String, String])
)

object RecordedRestore {

  /** The fixtures whose restores are recorded: a few of each writer, with and without checkpoints
    * and deletion vectors.
    */
  val tables: Seq[String] = Seq(
    "golden/basic-with-inserts-deletes-checkpoint",
    "golden/basic-with-inserts-overwrite-restore",
    "golden/data-reader-escaped-chars",
    "golden/dv-partitioned-with-checkpoint",
    "golden/time-travel-partition-changes-b",
    "kernel/basic-dv-with-checkpoint",
    "spark/table-with-dv-small"
  )

  /** The versions a table is restored to: 0 and the one before `latest`, when older than it. */
  def targets(latest: Long): Seq[Long] = Seq(0L, (latest - 1).max(0L)).distinct.filter(_ < latest)

  /** delta-spark's restore of a copy of the fixture `table` to `version`, asked now. */
  def live(spark: SparkSession, table: String, version: Long): Try[RecordedRestore] = {
    val fixture = Fixtures.root.resolve(table)
    val copy = RestoreOracle.copy(fixture, "restore-record")
    RestoreOracle.restore(spark, copy, Left(version)).map { metrics =>
      RecordedRestore(
        metrics,
        RestoreOracle.rows(spark, fixture, Some(version)),
        RestoreOracle.rows(spark, copy),
        RestoreOracle.view(spark, copy),
        RestoreOracle.lastCommit(spark, copy)
      )
    }
  }

  private def stringMap(m: Map[String, String]): ObjectNode = {
    val o = ViewCodec.mapper.createObjectNode()
    m.toSeq.sortBy(_._1).foreach { case (k, v) => o.put(k, v) }
    o
  }

  private def readMap(n: JsonNode): Map[String, String] =
    n.fields().asScala.map(e => e.getKey -> e.getValue.asText).toMap

  private def readStrings(n: JsonNode): Seq[String] = n.elements().asScala.map(_.asText).toSeq

  /** The recording's line for `table` restored to `version`: the answer or its refusal. */
  def entry(table: String, version: Long, answer: Try[RecordedRestore]): ObjectNode = {
    val o = ViewCodec.mapper.createObjectNode()
    o.put("table", table).put("restoreTo", version)
    answer match {
      case Success(r) =>
        val a = o.putObject("restore")
        a.set[JsonNode]("metrics", stringMap(r.metrics))
        val rows = a.putArray("rows")
        r.rows.foreach(rows.add)
        val restored = a.putArray("restoredRows")
        r.restoredRows.foreach(restored.add)
        a.set[JsonNode]("view", ViewCodec.encode(r.view, "\u0000"))
        val c = a.putObject("commit")
        c.put("operation", r.commit._1)
        c.set[JsonNode]("parameters", stringMap(r.commit._2))
        c.set[JsonNode]("metrics", stringMap(r.commit._3))
      case Failure(e) =>
        val cause = String.valueOf(e.getMessage).linesIterator.take(1).mkString.take(300)
        o.set[JsonNode](
          "refusal",
          ViewCodec.encodeRefusal(RecordedRefusal(Refusal.ofDeltaSpark(e), cause))
        )
    }
    o
  }

  /** The answer an [[entry]] holds. */
  def decode(o: JsonNode): Try[RecordedRestore] =
    if (o.has("refusal")) Failure(ViewCodec.decodeRefusal(o.get("refusal")))
    else
      Try {
        val a = o.get("restore")
        val c = a.get("commit")
        RecordedRestore(
          readMap(a.get("metrics")),
          readStrings(a.get("rows")),
          readStrings(a.get("restoredRows")),
          ViewCodec.decode(a.get("view"), "\u0000"),
          (c.get("operation").asText, readMap(c.get("parameters")), readMap(c.get("metrics")))
        )
      }
}
