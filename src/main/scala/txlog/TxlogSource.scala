package txlog

import org.apache.spark.sql.{SQLContext, SparkSession}
import org.apache.spark.sql.sources.{BaseRelation, DataSourceRegister, RelationProvider}

import txlog.scan.TableScan

/** The `txlog` data source: a Delta table's rows at its latest version, or at the version or time
  * the `versionAsOf` / `timestampAsOf` options name (as delta-spark's options do), read through
  * txlog's log replay. Registered under the short name `txlog`.
  *
  * {{{
  * val latest = spark.read.format("txlog").load("/data/events")
  * val v3 = spark.read.format("txlog").option("versionAsOf", 3).load("/data/events")
  * val then = spark.read.format("txlog").option("timestampAsOf", "2024-06-01").load(path)
  * }}}
  */
final class TxlogSource extends DataSourceRegister with RelationProvider {

  /** The name `spark.read.format` takes. Example: `spark.read.format("txlog")`. */
  override def shortName(): String = "txlog"

  /** The relation over the snapshot the options name; an option txlog does not know, or both a
    * version and a timestamp, is INVALID_ARGUMENT before anything is read.
    *
    * {{{
    * new TxlogSource().createRelation(spark.sqlContext, Map("path" -> "/data/events"))
    * }}}
    */
  override def createRelation(
      sqlContext: SQLContext,
      parameters: Map[String, String]
  ): BaseRelation = {
    val spark = sqlContext.sparkSession
    val options = TxlogSource.Options(parameters)
    val log = DeltaLog.forTable(spark, options.path)
    TableScan.relation(options.snapshot(log))
  }
}

private[txlog] object TxlogSource {

  val Path = "path"
  val VersionAsOf = "versionAsOf"
  val TimestampAsOf = "timestampAsOf"
  val Known: Seq[String] = Seq(Path, VersionAsOf, TimestampAsOf)

  /** The options of one read, checked: names are matched case-insensitively, as Spark does. */
  final case class Options(path: String, version: Option[Long], timestamp: Option[String]) {
    def snapshot(log: DeltaLog): Snapshot = (version, timestamp) match {
      case (Some(v), _) => log.snapshot(v)
      case (_, Some(t)) => log.snapshotAsOf(t)
      case _            => log.snapshot()
    }
  }

  object Options {
    def apply(parameters: Map[String, String]): Options = {
      val byName = parameters.map { case (k, v) => k.toLowerCase -> v }
      val unknown = parameters.keys.filterNot(k => Known.exists(_.equalsIgnoreCase(k)))
      if (unknown.nonEmpty) {
        throw TxlogErrors.invalidArgument(
          unknown.toSeq.sorted.mkString(", "),
          s"the txlog source does not know this option; it takes ${Known.mkString(", ")}."
        )
      }
      val path = byName.getOrElse(
        Path.toLowerCase,
        throw TxlogErrors.invalidArgument(Path, "give the table's path: load(path).")
      )
      val version = byName.get(VersionAsOf.toLowerCase).map { v =>
        scala.util
          .Try(v.trim.toLong)
          .toOption
          .filter(_ >= 0)
          .getOrElse(
            throw TxlogErrors.invalidArgument(VersionAsOf, s"'$v' is not a table version.")
          )
      }
      val timestamp = byName.get(TimestampAsOf.toLowerCase)
      if (version.isDefined && timestamp.isDefined) {
        throw TxlogErrors.invalidArgument(
          s"$VersionAsOf, $TimestampAsOf",
          "give one of them, not both."
        )
      }
      Options(path, version, timestamp)
    }
  }
}
