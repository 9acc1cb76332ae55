package txlog.timetravel

import txlog.errors.TxlogErrors

/** The one rule for an argument pair that names a table version either by number or by timestamp
  * (time travel, the change data feed's bounds): at most one of the two, INVALID_ARGUMENT naming
  * both otherwise.
  *
  * {{{
  * VersionOrTimestamp.of("version", Some(3L), "timestamp", None) // Some(Left(3))
  * }}}
  */
private[txlog] object VersionOrTimestamp {

  /** `Left(version)`, `Right(timestamp)` or None when neither is given. */
  def of(
      versionName: String,
      version: Option[Long],
      timestampName: String,
      timestamp: Option[String]
  ): Option[Either[Long, String]] = (version, timestamp) match {
    case (Some(_), Some(_)) =>
      throw TxlogErrors.invalidArgument(
        s"$versionName, $timestampName",
        s"give either $versionName or $timestampName, not both"
      )
    case (Some(v), None) => Some(Left(v))
    case (None, Some(t)) => Some(Right(t))
    case (None, None)    => None
  }
}
