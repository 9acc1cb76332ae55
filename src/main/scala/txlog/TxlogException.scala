package txlog

/** The one exception type txlog raises for user-facing problems.
  *
  * Every error has a stable `errorClass` (for example `VERSION_NOT_FOUND`) that callers and the
  * Python wrapper match on, and a message made of three parts: what went wrong (`problem`), why
  * (`cause`) and what to do about it (`fix`). Errors are built only in [[TxlogErrors]].
  *
  * {{{
  * try DeltaLog.forTable(spark, "/data/t").snapshot(42L)
  * catch { case e: TxlogException if e.errorClass == "VERSION_NOT_FOUND" => ... }
  * }}}
  */
final class TxlogException private[txlog] (
    val errorClass: String,
    val problem: String,
    val cause: String,
    val fix: String,
    underlying: Throwable = null
) extends RuntimeException(
      s"[$errorClass] $problem" +
        (if (cause.nonEmpty) s" Cause: $cause" else "") +
        (if (fix.nonEmpty) s" Fix: $fix" else ""),
      underlying
    ) {

  /** The error class, for Java and Python callers. Example: `e.getErrorClass()`. */
  def getErrorClass: String = errorClass
}
