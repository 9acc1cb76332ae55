package txlog.replay

import org.apache.spark.sql.SparkSession

/** The byte budgets of what replay holds on the driver, each a `spark.txlog.driver.*` setting.
  * Defaults are sized for a 1 GiB driver heap; past a budget replay falls back to a distributed
  * path instead of growing the structure (see README, "Driver memory").
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
  val MaxOverlayBytesConf = "spark.txlog.driver.maxOverlayBytes"

  /** Bytes of the sorted 64-bit hashes of a large tail's touched keys, broadcast to filter the base
    * (the checkpoint, or a cached state) without shuffling it. Past it the base is anti-joined by a
    * shuffle instead. Default 128 MiB (16M keys).
    */
  val MaxKeyHashBytesConf = "spark.txlog.driver.maxKeyHashBytes"

  def maxOverlayBytes(spark: SparkSession): Long = bytes(spark, MaxOverlayBytesConf, 128L << 20)

  def maxKeyHashBytes(spark: SparkSession): Long = bytes(spark, MaxKeyHashBytesConf, 128L << 20)

  private def bytes(spark: SparkSession, key: String, default: Long): Long =
    spark.conf.getOption(key).map(_.trim.toLong).getOrElse(default)
}
