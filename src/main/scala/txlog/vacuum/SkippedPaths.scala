package txlog.vacuum

import org.apache.spark.util.AccumulatorV2

/** Counts the paths of actions VACUUM skips (outside the table root, unresolvable, or in a hidden
  * directory) and keeps the [[Examples]] lexically smallest reasons, so the driver holds a bounded
  * sample whatever the table. Counted by tasks; a task run twice after a lost executor may count
  * its paths twice (the count is a report, never a decision).
  */
private[txlog] final class SkippedPaths(
    private var n: Long = 0L,
    private var shown: Vector[String] = Vector.empty
) extends AccumulatorV2[String, (Long, Seq[String])] {

  def isZero: Boolean = n == 0L
  def copy(): SkippedPaths = new SkippedPaths(n, shown)
  def reset(): Unit = { n = 0L; shown = Vector.empty }

  def add(reason: String): Unit = {
    n += 1
    keep(Seq(reason))
  }

  def merge(other: AccumulatorV2[String, (Long, Seq[String])]): Unit = other match {
    case o: SkippedPaths => n += o.n; keep(o.shown)
    case _ => throw new UnsupportedOperationException(s"cannot merge ${other.getClass}")
  }

  private def keep(more: Seq[String]): Unit =
    shown = (shown ++ more).distinct.sorted.take(SkippedPaths.Examples)

  def value: (Long, Seq[String]) = (n, shown)
}

private[txlog] object SkippedPaths {

  /** Reasons kept as examples: at most this many. */
  val Examples = 10
}
