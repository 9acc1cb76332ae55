package txlog.checkpoint

/** Told when a checkpoint write reaches a named stage ("staged", "staged sidecars", "published part
  * <n>"); tests pass one that throws to simulate a writer dying there. Example:
  * `CheckpointWriter.write(spark, snap, None, Map.empty, WriteObserver(s => log(s)))`.
  */
private[txlog] trait WriteObserver {
  def reached(stage: String): Unit
}

private[txlog] object WriteObserver {

  /** Observes nothing: what production writes use. */
  val NoOp: WriteObserver = _ => ()

  def apply(f: String => Unit): WriteObserver = s => f(s)
}
