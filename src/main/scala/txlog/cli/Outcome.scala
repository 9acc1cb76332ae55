package txlog.cli

import org.apache.spark.sql.DataFrame

/** What one command did to one table: its fields (after table, command, dry_run), its exit code,
  * and rows to stream under `rowsName` (findings, history, cleanup candidates), never collected.
  * With `firstColumnOnly`, each row is written as the value of its first column (vacuum's list of
  * paths) instead of an object. `release` runs once it is written (unpersisting what it held).
  */
private[txlog] final case class Outcome(
    fields: Seq[(String, Any)],
    code: Int = ExitCodes.Done,
    rows: Option[(String, DataFrame)] = None,
    firstColumnOnly: Boolean = false,
    release: () => Unit = () => ()
)

/** The command line's exit codes, the same for every command: 0 done, 1 findings, 2 usage error, 3
  * refused (txlog will not do it as asked: an unsupported feature, a retention too short, files
  * missing), 4 a failure worth retrying (storage, a concurrent commit), 5 any other failure (no
  * table there, a corrupt log, an unexpected error). Over several tables, the highest.
  */
private[txlog] object ExitCodes {
  val Done = 0
  val Findings = 1
  val Usage = 2
  val Refused = 3
  val Retryable = 4
  val Failed = 5

  /** Error classes that mean "refused": txlog will not do it as asked. */
  val RefusalClasses: Set[String] = Set(
    "UNSUPPORTED_READER_VERSION",
    "UNSUPPORTED_READER_FEATURES",
    "UNSUPPORTED_WRITER_VERSION",
    "UNSUPPORTED_WRITER_FEATURES",
    "VACUUM_RETENTION_TOO_SHORT",
    "CLEANUP_RETENTION_TOO_SHORT",
    "VACUUM_UNRELATED_PATHS",
    "REPAIR_TOO_MANY_LOST_FILES",
    "VACUUM_LITE_NOT_POSSIBLE",
    "RESTORE_MISSING_FILES",
    "STORAGE_NOT_ATOMIC",
    "APPEND_ONLY_VIOLATION"
  )

  /** Error classes of a command or setting given wrongly: nothing ran. */
  val UsageClasses: Set[String] = Set("INVALID_ARGUMENT", "INVALID_SETTING")

  /** Error classes of failures the same command may get past when run again. */
  val RetryableClasses: Set[String] = Set(
    "LOG_READ_FAILED",
    "LOG_WRITE_FAILED",
    "CONCURRENT_APPEND",
    "CONCURRENT_DELETE_READ",
    "CONCURRENT_DELETE_DELETE",
    "CONCURRENT_TRANSACTION",
    "METADATA_CHANGED",
    "PROTOCOL_CHANGED",
    "COMMIT_RETRIES_EXHAUSTED"
  )

  /** The error class of a failure (txlog's, found on the cause chain, or the exception's class
    * name) and its exit code; any other storage failure (an IOException) is retryable.
    */
  def of(e: Throwable): (String, Int) = {
    val chain = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(20).toSeq
    chain.collectFirst { case t: txlog.TxlogException => t } match {
      case Some(t) if UsageClasses(t.errorClass)     => (t.errorClass, Usage)
      case Some(t) if RefusalClasses(t.errorClass)   => (t.errorClass, Refused)
      case Some(t) if RetryableClasses(t.errorClass) => (t.errorClass, Retryable)
      case Some(t)                                   => (t.errorClass, Failed)
      case None if chain.exists(_.isInstanceOf[java.io.IOException]) =>
        (e.getClass.getName, Retryable)
      case None => (e.getClass.getName, Failed)
    }
  }
}
