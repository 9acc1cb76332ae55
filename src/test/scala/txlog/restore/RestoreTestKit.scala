package txlog.restore

import java.nio.file.Path

import scala.util.Try

import io.delta.tables.DeltaTable
import org.apache.commons.io.FileUtils
import org.apache.spark.sql.Row
import org.apache.spark.sql.delta.{DeltaLog => RefLog}

import txlog.{DeltaLog, Oracle, RestoreResult, SnapshotView, SparkSuite}

/** delta-spark as the oracle for RESTORE: its restore of one copy of a table against txlog's of
  * another, compared through delta-spark's own reading of both (snapshot, rows, history).
  *
  * [[refView]] reads with a new delta-spark DeltaLog; [[rows]], [[lastCommit]] and
  * [[commitTimestamp]] use the one delta-spark has for the path, which lists the log at every query
  * and so sees what txlog committed meanwhile (rebuilding a DeltaLog per question was most of these
  * suites' time).
  */
trait RestoreTestKit { self: SparkSuite =>

  /** A copy of `t` (file times kept) in a new temporary directory. */
  def copyTable(t: Path, prefix: String): Path = {
    val dest = tempDir(prefix).resolve(t.getFileName.toString)
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
  def refRestore(t: Path, to: Either[Long, String]): Try[Map[String, String]] = Try {
    RefLog.clearCache()
    val dt = DeltaTable.forPath(spark, t.toString)
    val out = to.fold(v => dt.restoreToVersion(v), ts => dt.restoreToTimestamp(ts)).collect()
    out.headOption.fold(Map.empty[String, String]) { row =>
      MetricNames.zipWithIndex.map { case (n, i) => n -> String.valueOf(row.get(i)) }.toMap
    }
  }

  /** txlog's result's metrics as text. */
  def metricsOf(r: RestoreResult): Map[String, String] =
    r.metrics.map { case (k, v) => k -> v.toString }

  /** txlog's RESTORE of `t`. */
  def ourRestore(t: Path, to: Either[Long, String], force: Boolean = false): Try[RestoreResult] =
    Try {
      val log = DeltaLog.forTable(spark, t.toString)
      to.fold(
        v => log.restore(version = Some(v), force = force),
        ts => log.restore(timestamp = Some(ts), force = force)
      )
    }

  /** The latest commit as delta-spark's history shows it: operation, parameters (null ones left
    * out) and metrics.
    */
  def lastCommit(t: Path): (String, Map[String, String], Map[String, String]) = {
    val r: Row = DeltaTable
      .forPath(spark, t.toString)
      .history(1)
      .select("operation", "operationParameters", "operationMetrics")
      .head()
    val params = r.getMap[String, String](1).toMap.filter(_._2 != null)
    (r.getString(0), params, r.getMap[String, String](2).toMap)
  }

  /** delta-spark's view of the latest snapshot of `t`, paths made relative to `t`. */
  def refView(t: Path): SnapshotView = relative(t, Oracle.reference(spark, t.toString, None))

  /** txlog's view of the latest snapshot of `t`, paths made relative to `t`. */
  def ourView(t: Path): SnapshotView = relative(t, Oracle.txlog(spark, t.toString, None))

  private def relative(t: Path, v: SnapshotView): SnapshotView = {
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
  def rows(t: Path, v: Option[Long] = None): Seq[String] = {
    val r = spark.read.format("delta")
    v.fold(r)(x => r.option("versionAsOf", x))
      .load(t.toString)
      .collect()
      .map(_.toString)
      .sorted
      .toSeq
  }

  /** The timestamp of version `v` of `t` as delta-spark's history gives it, as text. */
  def commitTimestamp(t: Path, v: Long): String = {
    DeltaTable
      .forPath(spark, t.toString)
      .history()
      .where(s"version = $v")
      .select("timestamp")
      .head()
      .getTimestamp(0)
      .toString
  }

  /** Restores copies of `t` to `to` with txlog and with delta-spark, and checks they agree: the
    * snapshots as delta-spark reads them (live files and deletion vectors, metadata, protocol,
    * tombstones), the rows (those of the restored version), and the commits' operation and metrics
    * (also txlog's result's). Returns txlog's result.
    */
  def agree(t: Path, to: Either[Long, String], rowsOf: Long): RestoreResult = {
    val ours = copyTable(t, "restore-ours")
    val ref = copyTable(t, "restore-ref")
    val expectedRows = rows(t, Some(rowsOf))
    val refMetrics0 = refRestore(ref, to).get
    val r = ourRestore(ours, to).get
    assert(metricsOf(r) === refMetrics0)
    // Each copy's questions together, asked of one DeltaLog.
    val rv = refView(ref)
    assert(rows(ref) === expectedRows)
    val (refOp, refParams, refMetrics) = lastCommit(ref)
    val ov = refView(ours)
    assert(rows(ours) === expectedRows)
    val (op, params, metrics) = lastCommit(ours)
    assert(ov.live === rv.live)
    assert(ov.metadata === rv.metadata)
    assert(ov.protocol === rv.protocol)
    assert(ov.tombstones === rv.tombstones)
    assert(ov.domains === rv.domains)
    assert(ov.version === rv.version)
    assert(ourView(ours).copy(tombstones = Set.empty) === ov.copy(tombstones = Set.empty))
    assert(op === "RESTORE")
    assert(op === refOp)
    assert(params === refParams)
    assert(metrics === refMetrics)
    assert(metricsOf(r) === refMetrics)
    assert(r.version === Some(rv.version))
    assert(r.restoredVersion === rowsOf)
    r
  }
}
