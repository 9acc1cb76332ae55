package txlog.bench

import java.lang.management.{ManagementFactory, MemoryType}

import scala.jdk.CollectionConverters._

/** The JVM heap peak of one operation: the sum of the heap memory pools' peak usage since
  * [[reset]], as bench/engines/spark.py reads it through py4j (so it includes garbage not yet
  * collected).
  */
object HeapPeak {
  private def pools = ManagementFactory.getMemoryPoolMXBeans.asScala
    .filter(_.getType == MemoryType.HEAP)

  /** Starts a new measurement. */
  def reset(): Unit = pools.foreach(_.resetPeakUsage())

  /** The heap peak since the last [[reset]], in MiB. */
  def mb: Double = pools.map(_.getPeakUsage.getUsed).sum.toDouble / (1 << 20)
}
