package txlog.restore

import java.nio.file.Path

import scala.util.Try

import txlog.{DeltaLog, Oracle, RestoreResult, SnapshotView, SparkSuite}
import txlog.oracle.RecordedRestore

/** delta-spark as the oracle for RESTORE: its restore of one copy of a table against txlog's of
  * another, compared through delta-spark's own reading of both (snapshot, rows, history); the
  * suite's session's side of [[RestoreOracle]].
  *
  * [[refView]] reads with a new delta-spark DeltaLog; [[rows]], [[lastCommit]] and
  * [[commitTimestamp]] use the one delta-spark has for the path, which lists the log at every query
  * and so sees what txlog committed meanwhile (rebuilding a DeltaLog per question was most of these
  * suites' time).
  */
trait RestoreTestKit { self: SparkSuite =>

  /** A copy of `t` (file times kept) in a new temporary directory. */
  def copyTable(t: Path, prefix: String): Path = RestoreOracle.copy(t, prefix)

  /** The metrics of delta-spark's RESTORE output, in its column order. */
  val MetricNames: Seq[String] = RestoreOracle.MetricNames

  /** delta-spark's RESTORE of `t` ([[RestoreOracle.restore]]). */
  def refRestore(t: Path, to: Either[Long, String]): Try[Map[String, String]] =
    RestoreOracle.restore(spark, t, to)

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

  /** The latest commit as delta-spark's history shows it ([[RestoreOracle.lastCommit]]). */
  def lastCommit(t: Path): (String, Map[String, String], Map[String, String]) =
    RestoreOracle.lastCommit(spark, t)

  /** delta-spark's view of the latest snapshot of `t`, paths made relative to `t`. */
  def refView(t: Path): SnapshotView = RestoreOracle.view(spark, t)

  /** txlog's view of the latest snapshot of `t`, paths made relative to `t`. */
  def ourView(t: Path): SnapshotView =
    RestoreOracle.relative(t, Oracle.txlog(spark, t.toString, None))

  /** The rows of version `v` (latest when None) as delta-spark reads them, sorted as text. */
  def rows(t: Path, v: Option[Long] = None): Seq[String] = RestoreOracle.rows(spark, t, v)

  /** The timestamp of version `v` of `t` as delta-spark's history gives it, as text. */
  def commitTimestamp(t: Path, v: Long): String = {
    io.delta.tables.DeltaTable
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
    val ref = copyTable(t, "restore-ref")
    val expectedRows = rows(t, Some(rowsOf))
    val refMetrics = refRestore(ref, to).get
    val expected = RecordedRestore(
      refMetrics,
      expectedRows,
      rows(ref),
      refView(ref),
      lastCommit(ref)
    )
    agreeWith(t, to, rowsOf, expected)
  }

  /** Restores a copy of `t` to `to` with txlog and checks it against delta-spark's restore of
    * another copy, `expected` (asked now by [[agree]], or recorded): the snapshot delta-spark reads
    * after txlog's restore, the rows, the commit's operation, parameters and metrics, and txlog's
    * result. Returns txlog's result.
    */
  def agreeWith(
      t: Path,
      to: Either[Long, String],
      rowsOf: Long,
      expected: RecordedRestore
  ): RestoreResult = {
    val ours = copyTable(t, "restore-ours")
    val r = ourRestore(ours, to).get
    assert(metricsOf(r) === expected.metrics)
    assert(expected.restoredRows === expected.rows)
    val rv = expected.view
    // The copy's questions together, asked of one DeltaLog.
    val ov = refView(ours)
    assert(rows(ours) === expected.rows)
    val (op, params, metrics) = lastCommit(ours)
    assert(ov.live === rv.live)
    assert(ov.metadata === rv.metadata)
    assert(ov.protocol === rv.protocol)
    assert(ov.tombstones === rv.tombstones)
    assert(ov.domains === rv.domains)
    assert(ov.version === rv.version)
    assert(ourView(ours).copy(tombstones = Set.empty) === ov.copy(tombstones = Set.empty))
    val (refOp, refParams, refMetrics) = expected.commit
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
