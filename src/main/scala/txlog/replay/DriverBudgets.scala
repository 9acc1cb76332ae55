package txlog.replay

import org.apache.spark.sql.SparkSession

import txlog.config.TxlogConf

/** The byte budgets of what replay holds on the driver, each a `spark.txlog.driver.*` setting.
  * Defaults are sized for a 1 GiB driver heap; past a budget replay falls back to a distributed
  * path instead of growing the structure (see docs/configuration.md, "Driver memory").
  *
  * {{{
  * spark.conf.set(DriverBudgets.MaxOverlayBytesConf, (32L << 20).toString)
  * }}}
  */
private[txlog] object DriverBudgets {

  /** Estimated bytes of the file actions an updated snapshot holds on the driver (its overlay:
    * every file action since the cached snapshot it builds on). Past it `update()` caches the new
    * files instead. Default 128 MiB.
    */
  val MaxOverlayBytesConf: String = TxlogConf.DriverMaxOverlayBytes.key

  /** Bytes of the sorted 64-bit hashes of a large tail's touched keys, broadcast to filter the base
    * (the checkpoint, or a cached state) without shuffling it. Past it the base is anti-joined by a
    * shuffle instead. Default 128 MiB (16M keys).
    */
  val MaxKeyHashBytesConf: String = TxlogConf.DriverMaxKeyHashBytes.key

  def maxOverlayBytes(spark: SparkSession): Long = TxlogConf.DriverMaxOverlayBytes.get(spark)

  def maxKeyHashBytes(spark: SparkSession): Long = TxlogConf.DriverMaxKeyHashBytes.get(spark)
}
