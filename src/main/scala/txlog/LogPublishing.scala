package txlog

/** How txlog publishes log files on a table's storage, as `DeltaLog.describe()` reports it, so an
  * operator knows before writing whether racing writers are safe there.
  *
  * @param scheme
  *   the storage's scheme (a `viewfs://` table's mount target's)
  * @param method
  *   how a commit, checkpoint or `_last_checkpoint` is put in place, and why: for example `hard
  *   link (put-if-absent), atomic move (overwrite)`, `conditional create (If-None-Match: *)`, or
  *   `refused: no conditional create (STORAGE_NOT_ATOMIC)`
  * @param concurrentWriters
  *   whether writers racing for one version are safe: exactly one wins it. False when writes are
  *   refused, or allowed only because `spark.txlog.storage.singleWriter` promises one writer
  *
  * {{{
  * val p = log.describe().publishing
  * if (!p.concurrentWriters) println(s"one writer at a time on ${p.scheme}: ${p.method}")
  * }}}
  */
final case class LogPublishing(scheme: String, method: String, concurrentWriters: Boolean)
    extends Summarized {

  /** scheme, method, concurrent_writers. Example: `p.summaryFields.toMap("method")`. */
  def summaryFields: Seq[(String, Any)] =
    Seq("scheme" -> scheme, "method" -> method, "concurrent_writers" -> concurrentWriters)
}
