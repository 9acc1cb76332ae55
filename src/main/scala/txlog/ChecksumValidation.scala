package txlog

import org.apache.spark.sql.{DataFrame, SparkSession}

/** One disagreement between a version checksum file and the state txlog replayed: `field` is the
  * checksum field (dotted for nested ones, e.g. `metadata.configuration`), `expected` the value in
  * the file and `actual` the value computed from the log, both as text (strings as themselves,
  * other values as compact JSON with sorted keys, `null` when absent).
  *
  * {{{
  * val fields = log.validateChecksum(3L).mismatches.map(_.field)
  * }}}
  */
final case class ChecksumMismatch(version: Long, field: String, expected: String, actual: String)

/** The result of validating the version checksum file (`n.crc`) of one version against a replay of
  * the log ("State Validation"): valid when there is no mismatch.
  *
  * {{{
  * val v = DeltaLog.forTable(spark, "/data/t").validateChecksum(3L)
  * if (!v.isValid) v.toDF(spark).show(truncate = false)
  * }}}
  */
final case class ChecksumValidation(version: Long, mismatches: Seq[ChecksumMismatch]) {

  /** Whether the file agrees with the replay. Example: `log.validateChecksum(3L).isValid`. */
  def isValid: Boolean = mismatches.isEmpty

  /** The mismatches as a DataFrame (version, field, expected, actual); empty when valid.
    *
    * {{{
    * log.validateChecksum(3L).toDF(spark).show(truncate = false)
    * }}}
    */
  def toDF(spark: SparkSession): DataFrame =
    spark.createDataFrame(mismatches).select("version", "field", "expected", "actual")
}
