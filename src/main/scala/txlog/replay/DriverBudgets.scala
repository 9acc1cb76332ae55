package txlog.replay

import org.apache.spark.sql.SparkSession

import txlog.config.TxlogConf

/** The byte budgets of what replay holds on the driver, each a `spark.txlog.driver.*` setting. The
  * replay budget follows the driver's heap; the others are sized for a 1 GiB heap. Past a budget
  * replay falls back to a distributed path instead of growing the structure (see
  * docs/configuration.md, "Driver memory").
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

  /** The driver heap one replay may hold (its tail's lines and rows): by default min(256 MiB, the
    * driver's maximum heap / 8), so that a notebook's default 1 GiB driver holds at most 128 MiB.
    */
  val MaxReplayBytesConf: String = TxlogConf.DriverMaxReplayBytes.key

  /** The budget of [[MaxReplayBytesConf]] in force. */
  def maxReplayBytes(spark: SparkSession): Long =
    TxlogConf.DriverMaxReplayBytes.get(spark).getOrElse(defaultReplayBytes)

  /** min(256 MiB, max heap / 8): the default replay budget of this JVM. */
  def defaultReplayBytes: Long = math.min(256L << 20, Runtime.getRuntime.maxMemory / 8)

  def maxOverlayBytes(spark: SparkSession): Long = TxlogConf.DriverMaxOverlayBytes.get(spark)

  def maxKeyHashBytes(spark: SparkSession): Long = TxlogConf.DriverMaxKeyHashBytes.get(spark)
}
