package txlog.storage

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession

/** The settings that choose a [[LogStore]], read from the active Spark session and else from the
  * Hadoop configuration of the file system (same keys):
  *
  *   - `spark.txlog.storage.<scheme>.kind` = local | rename | object overrides
  *     [[StoreKind.defaults]] for one scheme;
  *   - `spark.txlog.storage.singleWriter` = true lets object stores without a conditional create
  *     publish by check-then-create, which is only safe when one writer at a time writes a table.
  */
private[txlog] object StorageConf {
  val SingleWriterKey = "spark.txlog.storage.singleWriter"
  def kindKey(scheme: String): String = s"spark.txlog.storage.$scheme.kind"

  /** The value of `key`: the Spark session's first, then `hadoopConf`'s. */
  def get(hadoopConf: Configuration, key: String): Option[String] =
    SparkSession.getActiveSession
      .orElse(SparkSession.getDefaultSession)
      .flatMap(_.conf.getOption(key))
      .orElse(Option(hadoopConf).flatMap(c => Option(c.get(key))))

  def kind(hadoopConf: Configuration, scheme: String): StoreKind =
    get(hadoopConf, kindKey(scheme))
      .map(StoreKind.parse(kindKey(scheme), _))
      .getOrElse(StoreKind.defaults.getOrElse(scheme, StoreKind.Object))

  def singleWriter(hadoopConf: Configuration): Boolean =
    get(hadoopConf, SingleWriterKey).exists(_.trim.equalsIgnoreCase("true"))
}
