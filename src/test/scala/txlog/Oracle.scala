package txlog

import java.sql.Timestamp

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.delta.{RefVersions, TxlogReferenceAccess}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.delta.{DeltaLog => RefLog, Snapshot => RefSnapshot}

/** The comparable content of a snapshot: what delta-spark (the reference implementation, a
  * test-scope oracle) and txlog must agree on.
  */
final case class SnapshotView(
    version: Long,
    protocol: (Int, Int, Set[String], Set[String]),
    metadata: (String, String, Seq[String], Map[String, String]),
    live: Set[(String, String, Long, Map[String, String])],
    tombstones: Set[(String, String)],
    txns: Map[String, Long],
    domains: Map[String, String]
)

object Oracle {

  /** A file path as a fully qualified Hadoop path string, the same form for both readers. */
  private def qualified(conf: Configuration, p: Path): String =
    p.getFileSystem(conf).makeQualified(p).toString

  /** A path from txlog's file list made absolute against the table root, as the spec says: a
    * URI-encoded path, relative to the table unless absolute. Written here, not taken from txlog,
    * so the comparison does not trust txlog's own path handling.
    */
  private def txlogAbsolute(conf: Configuration, root: String, raw: String): String = {
    val p =
      try new Path(new java.net.URI(raw))
      catch { case _: java.net.URISyntaxException => new Path(raw) }
    qualified(conf, if (p.isAbsolute) p else new Path(new Path(root), p))
  }

  def reference(spark: SparkSession, path: String, version: Option[Long]): SnapshotView = {
    RefLog.clearCache()
    val log = RefLog.forTable(spark, path)
    refView(spark, log, version.fold(RefVersions.latest(log))(v => RefVersions.snapshotAt(log, v)))
  }

  /** delta-spark's snapshot of `path` at each of `versions`, or the error each raised, from one
    * DeltaLog. [[reference]] clears delta-spark's cache and so makes a new DeltaLog, which loads
    * the latest snapshot before the one asked for: per version of a table that does not change
    * meanwhile, that load is repeated work.
    */
  def references(spark: SparkSession, path: String, versions: Seq[Long]): Seq[Try[SnapshotView]] = {
    val log = Try { RefLog.clearCache(); RefLog.forTable(spark, path) }
    versions.map(v => log.map(l => refView(spark, l, RefVersions.snapshotAt(l, v))))
  }

  /** delta-spark's snapshot of the shared fixture `name` (or its refusal) as recorded by `make
    * oracle-record` ([[txlog.oracle.Recording]]): the fixtures are read-only (tests change copies),
    * and delta-spark's reading of them does not depend on the txlog settings suites vary.
    */
  def fixtureReference(name: String, version: Option[Long] = None): Try[SnapshotView] =
    _root_.txlog.oracle.Recording.current.answer(name, version)

  /** delta-spark's snapshot of the shared fixture `name` (or its error), read now. */
  def liveFixtureReference(
      spark: SparkSession,
      name: String,
      version: Option[Long] = None
  ): Try[SnapshotView] = Try(reference(spark, Fixtures.path(name), version))

  private def refView(spark: SparkSession, log: RefLog, s: RefSnapshot): SnapshotView = {
    val p = s.protocol
    val m = s.metadata
    val (adds, removes, txns, domains) = TxlogReferenceAccess.reconciled(s)
    val conf = spark.sessionState.newHadoopConf()
    SnapshotView(
      s.version,
      (
        p.minReaderVersion,
        p.minWriterVersion,
        p.readerFeatures.getOrElse(Set.empty),
        p.writerFeatures.getOrElse(Set.empty)
      ),
      (m.id, m.schemaString, m.partitionColumns, m.configuration),
      adds
        .map(a =>
          (
            qualified(conf, a.absolutePath(log)),
            Option(a.deletionVector).map(_.uniqueId).getOrElse(""),
            a.size,
            a.partitionValues
          )
        )
        .toSet,
      removes
        .map(r =>
          (
            qualified(conf, r.absolutePath(log)),
            Option(r.deletionVector).map(_.uniqueId).getOrElse("")
          )
        )
        .toSet,
      txns.map(t => t.appId -> t.version).toMap,
      domains.filterNot(_.removed).map(d => d.domain -> d.configuration).toMap
    )
  }

  def txlog(spark: SparkSession, path: String, version: Option[Long]): SnapshotView = {
    val log = DeltaLog.forTable(spark, path)
    view(spark, version.fold(log.snapshot())(log.snapshot))
  }

  /** The comparable content of a txlog snapshot. */
  def view(spark: SparkSession, s: Snapshot): SnapshotView = {
    val p = s.protocol
    val m = s.metadata
    val conf = spark.sessionState.newHadoopConf()
    def dvId(r: Row): String = Option(r.getAs[Row]("deletionVector"))
      .map { dv =>
        dv.getAs[String]("storageType") + dv.getAs[String]("pathOrInlineDv") +
          Option(dv.getAs[Any]("offset")).map("@" + _).getOrElse("")
      }
      .getOrElse("")
    SnapshotView(
      s.version,
      (
        p.minReaderVersion,
        p.minWriterVersion,
        p.readerFeatures.getOrElse(Set.empty),
        p.writerFeatures.getOrElse(Set.empty)
      ),
      (m.id, m.schemaString, m.partitionColumns, m.configuration),
      s.allFiles
        .select("path", "deletionVector", "size", "partitionValues")
        .collect()
        .map(r =>
          (
            txlogAbsolute(conf, s.tablePath, r.getString(0)),
            dvId(r),
            r.getLong(2),
            r.getMap[String, String](3).toMap
          )
        )
        .toSet,
      s.tombstones
        .select("path", "deletionVector")
        .collect()
        .map(r => (txlogAbsolute(conf, s.tablePath, r.getString(0)), dvId(r)))
        .toSet,
      s.setTransactions,
      s.domainMetadata
    )
  }

  /** For timestamps just before, at and just after each commit of `path` (as delta-spark dates
    * them) and a minute before the first and after the last: the version txlog and delta-spark
    * resolve each to, or the error each raised.
    */
  def timestampAnswers(
      spark: SparkSession,
      path: String
  ): Seq[(Timestamp, Try[Long], Try[Long])] = {
    RefLog.clearCache()
    val ref = RefLog.forTable(spark, path)
    val commits = ref.history
      .getHistory(None)
      .map(h => h.getVersion -> h.timestamp.getTime)
      .sortBy(_._1)
    val probes = commits.flatMap { case (_, t) => Seq(t - 1, t, t + 1) }.distinct.sorted ++
      Seq(commits.head._2 - 60000L, commits.last._2 + 60000L)
    val log = DeltaLog.forTable(spark, path)
    probes.map { t =>
      val ts = new Timestamp(t)
      val theirs = Try(RefVersions.versionAtTime(ref, ts))
      (ts, Try(log.snapshotAsOf(ts).version), theirs)
    }
  }

  /** Both results, or the error each raised. */
  def both(
      spark: SparkSession,
      path: String,
      version: Option[Long] = None
  ): (Try[SnapshotView], Try[SnapshotView]) =
    (Try(txlog(spark, path, version)), Try(reference(spark, path, version)))

  /** [[both]] at each of `versions` of a table that does not change meanwhile (delta-spark's
    * through one DeltaLog, [[references]]).
    */
  def bothAt(
      spark: SparkSession,
      path: String,
      versions: Seq[Long]
  ): Seq[(Long, Try[SnapshotView], Try[SnapshotView])] =
    versions.zip(references(spark, path, versions)).map { case (v, ref) =>
      (v, Try(txlog(spark, path, Some(v))), ref)
    }
}
