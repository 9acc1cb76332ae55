package txlog.util

import txlog.errors.TxlogErrors

/** The one reading of option values that the command line and the Python facade share: both hand
  * options over as text (argv; py4j maps of strings). A value that does not parse is
  * INVALID_ARGUMENT naming the option, before anything runs.
  *
  * {{{
  * val version: Option[Long] = OptionValues.wholeNumber(options, "version")
  * val dryRun = OptionValues.flag(options, "dryRun", default = true)
  * }}}
  */
private[txlog] object OptionValues {

  /** `text` as a whole number >= 0. */
  def wholeNumber(name: String, text: String): Long =
    Option(text)
      .flatMap(v => scala.util.Try(v.trim.toLong).toOption)
      .filter(_ >= 0)
      .getOrElse(throw TxlogErrors.invalidArgument(name, s"'$text' is not a non-negative integer"))

  /** The option `name` of `options` as a whole number >= 0, if given. */
  def wholeNumber(options: Map[String, String], name: String): Option[Long] =
    options.get(name).map(wholeNumber(name, _))

  /** The option `name` of `options` as a finite number >= 0 (hours, for example), if given. */
  def nonNegativeNumber(options: Map[String, String], name: String): Option[Double] =
    options.get(name).map { v =>
      scala.util
        .Try(v.trim.toDouble)
        .toOption
        .filter(h => h >= 0 && !h.isInfinite && !h.isNaN)
        .getOrElse(throw TxlogErrors.invalidArgument(name, s"'$v' is not a non-negative number"))
    }

  /** The option `name` of `options` as true or false (any case); `default` when absent. */
  def flag(options: Map[String, String], name: String, default: Boolean): Boolean =
    options.get(name).map(_.trim.toLowerCase(java.util.Locale.ROOT)) match {
      case None          => default
      case Some("true")  => true
      case Some("false") => false
      case Some(other) =>
        throw TxlogErrors.invalidArgument(name, s"'$other' is not true or false")
    }
}
