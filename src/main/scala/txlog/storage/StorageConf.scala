package txlog.storage

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession

import txlog.config.{Setting, TxlogConf}

/** The settings that choose a [[LogStore]], read from the active Spark session and else from the
  * Hadoop configuration of the file system (same keys):
  *
  *   - `spark.txlog.storage.<scheme>.kind` = local | rename | object overrides
  *     [[StoreKind.defaults]] for one scheme;
  *   - `spark.txlog.storage.singleWriter` = true lets object stores without a conditional create
  *     publish by check-then-create, which is only safe when one writer at a time writes a table;
  *   - `spark.txlog.storage.sdkConditionalPut` = false keeps S3A without a conditional create from
  *     publishing through its AWS SDK client's conditional PUT ([[S3ConditionalPut]]);
  *   - `spark.txlog.storage.leanGet` = false sends every GET of a log object through S3A's client
  *     ([[S3LeanGet]] otherwise, where S3A's settings allow);
  *   - `spark.txlog.storage.exclusiveCreateSchemes` (comma-separated, `gs` by default) names the
  *     object store schemes whose `create(path, overwrite = false)` is tried as put-if-absent
  *     ([[ExclusiveCreate]]);
  *   - `spark.txlog.storage.atomicRenameSchemes` (comma-separated) names the schemes besides `hdfs`
  *     whose `FileContext` rename refuses an existing target atomically, for the `rename` kind
  *     (elsewhere it is refused, as a check-then-rename is not atomic).
  */
private[txlog] object StorageConf {
  val SingleWriterKey: String = TxlogConf.StorageSingleWriter.key
  val AtomicRenameSchemesKey: String = TxlogConf.StorageAtomicRenameSchemes.key

  /** `hdfs` and the schemes [[AtomicRenameSchemesKey]] adds. */
  def atomicRenameSchemes(hadoopConf: Configuration): Set[String] =
    Set("hdfs") ++ TxlogConf.StorageAtomicRenameSchemes
      .from(get(hadoopConf, AtomicRenameSchemesKey))
      .filter(_.nonEmpty)
  def kindKey(scheme: String): String = TxlogConf.storageKindKey(scheme)

  /** The value of `key`: with a running Spark session, the session's setting, else its Hadoop
    * configuration's; without one, `hadoopConf`'s. A file system's own configuration is not read
    * when there is a session: it is the one the file system was created and cached with (S3A caches
    * one per bucket for the JVM), which holds the session's settings of that moment, so a setting
    * unset since (single-writer mode) would linger there.
    */
  def get(hadoopConf: Configuration, key: String): Option[String] =
    Seq(SparkSession.getActiveSession, SparkSession.getDefaultSession).flatten
      .find(!_.sparkContext.isStopped) match {
      case Some(s) =>
        Setting.raw(s, key).orElse(Option(s.sparkContext.hadoopConfiguration.get(key)))
      case None => Option(hadoopConf).flatMap(c => Option(c.get(key)))
    }

  def kind(hadoopConf: Configuration, scheme: String): StoreKind =
    get(hadoopConf, kindKey(scheme))
      .map(StoreKind.parse(kindKey(scheme), _))
      .getOrElse(StoreKind.defaults.getOrElse(scheme, StoreKind.Object))

  /** Whether S3A without a conditional create may put-if-absent through its SDK client. */
  def sdkConditionalPut(hadoopConf: Configuration): Boolean =
    TxlogConf.StorageSdkConditionalPut.from(get(hadoopConf, TxlogConf.StorageSdkConditionalPut.key))

  /** Whether S3A's small log objects may be read with lean GETs ([[S3LeanGet]]). */
  def leanGet(hadoopConf: Configuration): Boolean =
    TxlogConf.StorageS3LeanGet.from(get(hadoopConf, TxlogConf.StorageS3LeanGet.key))

  /** The schemes where `create(path, overwrite = false)` is tried as put-if-absent. */
  def exclusiveCreateSchemes(hadoopConf: Configuration): Set[String] = {
    val s = TxlogConf.StorageExclusiveCreateSchemes
    s.from(get(hadoopConf, s.key)).toSet
  }

  def singleWriter(hadoopConf: Configuration): Boolean =
    TxlogConf.StorageSingleWriter.from(get(hadoopConf, SingleWriterKey))
}
