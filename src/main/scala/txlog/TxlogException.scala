package txlog

import org.apache.spark.SparkThrowable

import txlog.errors.TxlogErrors

/** The one exception type txlog raises for user-facing problems.
  *
  * Every error has a stable `errorClass` (for example `VERSION_NOT_FOUND`) that callers and the
  * Python wrapper match on, and a message made of three parts: what went wrong (`problem`), why
  * (`cause`) and what to do about it (`fix`). Errors about one log file carry it, and its version
  * when it has one, as fields (`file`, `version`), set where the error is raised. `isRetryable`
  * tells storage failures (the same call may succeed later) from a log that is broken. Errors are
  * built only in [[TxlogErrors]]. It is a `SparkThrowable`: its error class is its condition, with
  * a SQLSTATE ([[ErrorClasses.sqlState]]) and its parts as message parameters (`problem`, `cause`,
  * `fix`, `file`, `version`), so Spark, SQL clients and Python report it as Spark's own errors,
  * also when a task raised it.
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
    underlying: Throwable,
    /** The log file the error is about, if it is about one; for a commit conflict, the first
      * conflicting data file. Example: `e.file`.
      */
    val file: Option[String],
    /** The table version of [[file]], if it has one; for a commit conflict, the version of the
      * winning commit. Example: `e.version`.
      */
    val version: Option[Long]
) extends RuntimeException(
      s"[$errorClass] $problem" +
        (if (cause.nonEmpty) s" Cause: $cause" else "") +
        (if (fix.nonEmpty) s" Fix: $fix" else ""),
      underlying
    )
    with SparkThrowable {

  private[txlog] def this(
      errorClass: String,
      problem: String,
      cause: String,
      fix: String,
      underlying: Throwable
  ) = this(errorClass, problem, cause, fix, underlying, None, None)

  private[txlog] def this(errorClass: String, problem: String, cause: String, fix: String) =
    this(errorClass, problem, cause, fix, null, None, None)

  /** The error class, for Java and Python callers. Example: `e.getErrorClass()`. */
  override def getErrorClass: String = errorClass

  /** The error class, as Spark 4 names it (its condition). Example: `e.getCondition()`. */
  def getCondition: String = errorClass

  /** The SQLSTATE of the error class. Example: `e.getSqlState()` is `40001` for a conflict. */
  override def getSqlState: String = ErrorClasses.sqlState.getOrElse(errorClass, "XX000")

  /** The message's parts by name: `problem`, `cause`, `fix`, and `file` and `version` when the
    * error has them. Example: `e.getMessageParameters.get("fix")`.
    */
  override def getMessageParameters: java.util.Map[String, String] = {
    val m = new java.util.LinkedHashMap[String, String]()
    m.put("problem", problem)
    m.put("cause", cause)
    m.put("fix", fix)
    file.foreach(m.put("file", _))
    version.foreach(v => m.put("version", v.toString))
    m
  }

  /** Whether retrying the same call may succeed: a storage failure, not a broken log. Example: `if
    * (e.isRetryable) retry()`.
    */
  def isRetryable: Boolean = TxlogErrors.Retryable(errorClass)

  /** [[file]] for Java and Python callers; null when the error is about no single file. Example:
    * `e.getFile()`.
    */
  def getFile: String = file.orNull

  /** [[version]] for Java and Python callers; -1 when unknown. Example: `e.getVersion()`. */
  def getVersion: Long = version.getOrElse(-1L)
}
