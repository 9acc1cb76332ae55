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

private[txlog] object ExitCodes {
  val Done = 0
  val Findings = 1
  val Usage = 2
  val Refused = 3

  /** Error classes that mean "refused: the table uses what txlog does not support". */
  val RefusalClasses: Set[String] = Set(
    "UNSUPPORTED_READER_VERSION",
    "UNSUPPORTED_READER_FEATURES",
    "UNSUPPORTED_WRITER_VERSION",
    "UNSUPPORTED_WRITER_FEATURES"
  )
}
