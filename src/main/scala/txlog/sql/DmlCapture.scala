package txlog.sql

import java.util.concurrent.atomic.AtomicReference

import txlog.CommitResult

/** What the commit of one UPDATE or MERGE run by `DeltaLog.update` / `DeltaLog.merge` did: the
  * table those calls build ([[TxlogTable]] with a capture) hands its commit here, on the driver,
  * and the call reads it back once the statement has run. One entry: a statement commits once.
  *
  * {{{
  * val capture = new DmlCapture
  * // ... the statement runs against new TxlogTable(name, snapshot, Some(capture)) ...
  * capture.outcome.map(_.commit.version)
  * }}}
  */
private[txlog] final class DmlCapture(val beforeCommit: () => Unit = () => ()) {
  private val got = new AtomicReference[Option[DmlCapture.Outcome]](None)

  /** Keeps `o`; a second commit of one statement is a bug, not a result to drop silently. */
  def set(o: DmlCapture.Outcome): Unit =
    if (!got.compareAndSet(None, Some(o))) {
      throw new IllegalStateException(s"a second commit (v${o.commit.version}) for one statement")
    }

  /** The commit, or None when the statement committed nothing. */
  def outcome: Option[DmlCapture.Outcome] = got.get()
}

private[txlog] object DmlCapture {

  /** A commit and its `operationMetrics` (delta-spark's names). */
  final case class Outcome(commit: CommitResult, metrics: Map[String, String]) {
    def count(name: String): Long = metrics.get(name).map(_.toLong).getOrElse(0L)
  }

  /** A MERGE Spark ran as an append (only `WHEN NOT MATCHED` clauses), with MERGE's metric names.
    */
  def ofAppend(w: txlog.WriteResult): Option[Outcome] = w.commit.map { c =>
    Outcome(
      c,
      Map(
        "numTargetRowsInserted" -> w.numOutputRows.toString,
        "numTargetFilesAdded" -> w.numFiles.toString,
        "numTargetFilesRemoved" -> "0"
      )
    )
  }
}
