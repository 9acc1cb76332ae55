package txlog.storage

import java.util.concurrent.{ConcurrentLinkedQueue, CyclicBarrier}
import java.util.concurrent.atomic.AtomicReference

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path

/** What the test file systems of this package were asked to do, for assertions that a target was
  * never deleted or renamed onto; and an optional barrier that holds `FileSystem.rename` until that
  * many callers arrive, which turns a check-then-rename race into a certainty.
  */
object FsEvents {
  private val events = new ConcurrentLinkedQueue[(String, String)]()
  val renameBarrier = new AtomicReference[CyclicBarrier](null)

  def record(op: String, p: Path): Unit = events.add(op -> p.toUri.getPath)
  def clear(): Unit = events.clear()

  /** The operations `op` recorded on files named `name`. */
  def on(op: String, name: String): Seq[String] =
    events.asScala.collect { case (`op`, p) if new Path(p).getName == name => p }.toSeq

  def awaitRenameBarrier(): Unit = Option(renameBarrier.get).foreach(_.await())
}
