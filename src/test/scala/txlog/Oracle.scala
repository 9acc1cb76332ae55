package txlog

import scala.util.Try

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.delta.{DeltaLog => RefLog, Snapshot => RefSnapshot}

import txlog.replay.FileKeys

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
  private def canon(root: String, p: String) = FileKeys.canonicalize(root, p)

  def reference(spark: SparkSession, path: String, version: Option[Long]): SnapshotView = {
    RefLog.clearCache()
    val log = RefLog.forTable(spark, path)
    val s: RefSnapshot =
      version.fold(log.update(false, None, None))(v => log.getSnapshotAt(v, None, None, false))
    val root = new Path(log.dataPath.toUri).toString
    val p = s.protocol
    val m = s.metadata
    import spark.implicits._
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
        .collect()
        .map(a =>
          (
            canon(root, a.path),
            Option(a.deletionVector).map(_.uniqueId).getOrElse(""),
            a.size,
            a.partitionValues
          )
        )
        .toSet,
      s.tombstones
        .collect()
        .map(r => (canon(root, r.path), Option(r.deletionVector).map(_.uniqueId).getOrElse("")))
        .toSet,
      s.setTransactions.map(t => t.appId -> t.version).toMap,
      s.domainMetadata.filterNot(_.removed).map(d => d.domain -> d.configuration).toMap
    )
  }

  def txlog(spark: SparkSession, path: String, version: Option[Long]): SnapshotView = {
    val log = DeltaLog.forTable(spark, path)
    view(version.fold(log.snapshot())(log.snapshot))
  }

  /** The comparable content of a txlog snapshot. */
  def view(s: Snapshot): SnapshotView = {
    val p = s.protocol
    val m = s.metadata
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
            canon(s.tablePath, r.getString(0)),
            dvId(r),
            r.getLong(2),
            r.getMap[String, String](3).toMap
          )
        )
        .toSet,
      s.tombstones
        .select("path", "deletionVector")
        .collect()
        .map(r => (canon(s.tablePath, r.getString(0)), dvId(r)))
        .toSet,
      s.setTransactions,
      s.domainMetadata
    )
  }

  /** Both results, or the error each raised. */
  def both(
      spark: SparkSession,
      path: String,
      version: Option[Long] = None
  ): (Try[SnapshotView], Try[SnapshotView]) =
    (Try(txlog(spark, path, version)), Try(reference(spark, path, version)))
}
