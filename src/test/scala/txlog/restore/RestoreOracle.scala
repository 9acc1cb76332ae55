package txlog.restore

import java.nio.file.Path

import scala.util.Try

import io.delta.tables.DeltaTable
import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.delta.{DeltaLog => RefLog}

import txlog.{Oracle, SnapshotView}

/** delta-spark's side of a RESTORE comparison, on any session: its restore of a table, and its
  * reading of a table afterwards. [[RestoreTestKit]] asks it within suites; the oracle recording
  * ([[txlog.oracle.RecordedRestore]]) asks it once per fixture and target version.
  */
object RestoreOracle {

  /** A copy of `t` (file times kept) in a new temporary directory named with `prefix`. */
  def copy(t: Path, prefix: String): Path = {
    val d = txlog.testing.TempDirs.create(prefix)
    val dest = d.resolve(t.getFileName.toString)
    FileUtils.copyDirectory(t.toFile, dest.toFile, true)
    dest
  }

  /** The metrics of delta-spark's RESTORE output, in its column order. */
  val MetricNames: Seq[String] = Seq(
    "tableSizeAfterRestore",
    "numOfFilesAfterRestore",
    "numRemovedFiles",
    "numRestoredFiles",
    "removedFilesSize",
    "restoredFilesSize"
  )

  /** delta-spark's RESTORE of `t` to a version (Left) or timestamp (Right): the metrics it returns
    * (none when it had nothing to do).
    */
  def restore(spark: SparkSession, t: Path, to: Either[Long, String]): Try[Map[String, String]] =
    Try {
      RefLog.clearCache()
      val dt = DeltaTable.forPath(spark, t.toString)
      val out = to.fold(v => dt.restoreToVersion(v), ts => dt.restoreToTimestamp(ts)).collect()
      out.headOption.fold(Map.empty[String, String]) { row =>
        MetricNames.zipWithIndex.map { case (n, i) => n -> String.valueOf(row.get(i)) }.toMap
      }
    }

  /** The latest commit as delta-spark's history shows it: operation, parameters (null ones left
    * out) and metrics.
    */
  def lastCommit(
      spark: SparkSession,
      t: Path
  ): (String, Map[String, String], Map[String, String]) = {
    val r: Row = DeltaTable
      .forPath(spark, t.toString)
      .history(1)
      .select("operation", "operationParameters", "operationMetrics")
      .head()
    val params = r.getMap[String, String](1).toMap.filter(_._2 != null)
    (r.getString(0), params, r.getMap[String, String](2).toMap)
  }

  /** delta-spark's view of the latest snapshot of `t`, paths made relative to `t`. */
  def view(spark: SparkSession, t: Path): SnapshotView =
    relative(t, Oracle.reference(spark, t.toString, None))

  /** `v` with the paths under `t` made relative to it. */
  def relative(t: Path, v: SnapshotView): SnapshotView = {
    val root = t.toUri.getPath.stripSuffix("/") + "/"
    def rel(p: String) = {
      val path = new org.apache.hadoop.fs.Path(p).toUri.getPath
      if (path.startsWith(root)) path.substring(root.length) else path
    }
    v.copy(
      live = v.live.map { case (p, dv, s, pv) => (rel(p), dv, s, pv) },
      tombstones = v.tombstones.map { case (p, dv) => (rel(p), dv) }
    )
  }

  /** The rows of version `v` (latest when None) as delta-spark reads them, sorted as text. */
  def rows(spark: SparkSession, t: Path, v: Option[Long] = None): Seq[String] = {
    val r = spark.read.format("delta")
    v.fold(r)(x => r.option("versionAsOf", x))
      .load(t.toString)
      .collect()
      .map(_.toString)
      .sorted
      .toSeq
  }
}
