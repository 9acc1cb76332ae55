package txlog.storage

import java.util.concurrent.{ConcurrentLinkedQueue, CyclicBarrier}
import java.util.concurrent.atomic.AtomicReference

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path

/** What the test file systems of this package were asked to do, for assertions that a target was
  * never deleted or renamed onto; an optional barrier that holds `FileSystem.rename` until that
  * many callers arrive, which turns a check-then-rename race into a certainty; and faults of PUTs.
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

  /** A fault for the next PUTs of [[ObjectStoreLikeFileSystem]] to a file name: (`midWrite`: the
    * upload breaks halfway through the bytes; `ackLost`: the object is stored, then the client sees
    * an error, as when the response is lost), name.
    */
  val putFault = new AtomicReference[(String, String)](null)

  def faultFor(name: String): Option[String] =
    Option(putFault.get).collect { case (kind, `name`) => kind }
}
