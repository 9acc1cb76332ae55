package txlog.vacuum

import java.util.concurrent.TimeUnit

import txlog.errors.TxlogErrors

/** The retention a vacuum was asked for, checked as delta-spark checks it: hours rounded to the
  * nearest whole hour; negative is INVALID_ARGUMENT; shorter than the table's
  * `delta.deletedFileRetentionDuration` is VACUUM_RETENTION_TOO_SHORT unless forced.
  */
private[txlog] object Retention {

  /** The asked retention in milliseconds (None: the table's). */
  def specified(
      table: String,
      retentionHours: Option[Double],
      configuredMillis: Long,
      force: Boolean
  ): Option[Long] = {
    val millis = retentionHours.map { h =>
      if (h.isNaN || h.isInfinite || h < 0) {
        throw TxlogErrors.invalidArgument(
          "retentionHours",
          s"$h is not a non-negative number of hours"
        )
      }
      TimeUnit.HOURS.toMillis(math.round(h))
    }
    millis.filter(_ < configuredMillis).filterNot(_ => force).foreach { m =>
      throw TxlogErrors.vacuumRetentionTooShort(
        table,
        TimeUnit.MILLISECONDS.toHours(m),
        hoursRoundedUp(configuredMillis)
      )
    }
    millis
  }

  private def hoursRoundedUp(millis: Long): Long = {
    val h = TimeUnit.MILLISECONDS.toHours(millis)
    if (TimeUnit.HOURS.toMillis(h) < millis) h + 1 else h
  }
}
