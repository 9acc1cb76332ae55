package txlog.testing

import java.io.{FileNotFoundException, IOException}
import java.net.URI
import java.nio.file.AccessDeniedException
import java.util.concurrent.{CompletableFuture, ConcurrentHashMap, CountDownLatch, TimeUnit}
import java.util.concurrent.atomic.{AtomicLong, AtomicReference}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs._
import org.apache.hadoop.fs.permission.FsPermission

/** A local file system under the `faulty://` scheme that fails chosen files on open, delete or
  * create and counts metadata calls, for read-failure, listing and write-failure tests. Faults and
  * counters are global (tasks run in the test JVM); call [[FaultInjectingFileSystem.reset]] between
  * tests.
  *
  * {{{
  * spark.conf: spark.hadoop.fs.faulty.impl = txlog.testing.FaultInjectingFileSystem
  * FaultInjectingFileSystem.failOpen("00000000000000000003.json", Fault.AccessDenied)
  * DeltaLog.forTable(spark, "faulty://" + dir).snapshot()
  * }}}
  */
class FaultInjectingFileSystem extends FilterFileSystem(new RawLocalFileSystem) {
  import FaultInjectingFileSystem._

  override def initialize(name: URI, conf: Configuration): Unit = {
    super.initialize(URI.create("file:///"), conf)
  }
  override def getUri: URI = URI.create(s"$Scheme:///")
  override def getScheme: String = Scheme
  override def getWorkingDirectory: Path = new Path(s"$Scheme:///")

  private def local(p: Path): Path = new Path("file", null, p.toUri.getPath)
  private def faulty(p: Path): Path = new Path(Scheme, null, p.toUri.getPath)
  private def faulty(s: FileStatus): FileStatus = {
    val out = new FileStatus(s)
    out.setPath(faulty(s.getPath))
    out
  }

  override def checkPath(path: Path): Unit = ()
  override def makeQualified(path: Path): Path =
    faulty(new Path(new Path(s"$Scheme:///"), path))

  override def open(f: Path, bufferSize: Int): FSDataInputStream = {
    opensOf.computeIfAbsent(f.getName, _ => new AtomicLong).incrementAndGet()
    inject("open", f)
    super.open(local(f), bufferSize)
  }
  override def open(f: Path): FSDataInputStream = open(f, 4096)

  // Parquet opens files through the builder API: route it through open, so faults apply.
  override protected def openFileWithOptions(
      path: Path,
      parameters: org.apache.hadoop.fs.impl.OpenFileParameters
  ): CompletableFuture[FSDataInputStream] =
    CompletableFuture.completedFuture(open(path, 64 * 1024))

  override def listStatus(f: Path): Array[FileStatus] = {
    counted(f)
    if (super.getFileStatus(local(f)).isDirectory) inject("list", f)
    super.listStatus(local(f)).map(faulty)
  }

  override def listStatusIterator(f: Path): RemoteIterator[FileStatus] = {
    counted(f)
    if (super.getFileStatus(local(f)).isDirectory) inject("list", f)
    val it = super.listStatusIterator(local(f))
    new RemoteIterator[FileStatus] {
      def hasNext: Boolean = it.hasNext
      def next(): FileStatus = { val s = faulty(it.next()); listed.incrementAndGet(); s }
    }
  }

  private def counted(f: Path): Unit = {
    listings.incrementAndGet()
    listingsOf.computeIfAbsent(f.getName, _ => new AtomicLong).incrementAndGet()
  }

  override def getFileStatus(f: Path): FileStatus = {
    stats.incrementAndGet()
    statted.add(f.getName)
    if (org.apache.spark.TaskContext.get() == null) stattedOnDriver.add(f.getName)
    faulty(super.getFileStatus(local(f)))
  }

  override def exists(f: Path): Boolean =
    try { getFileStatus(f); true }
    catch { case _: FileNotFoundException => false }

  override def create(
      f: Path,
      permission: FsPermission,
      overwrite: Boolean,
      bufferSize: Int,
      replication: Short,
      blockSize: Long,
      progress: org.apache.hadoop.util.Progressable
  ): FSDataOutputStream = {
    injectMatching("create", f)
    super.create(local(f), permission, overwrite, bufferSize, replication, blockSize, progress)
  }
  override def rename(src: Path, dst: Path): Boolean = super.rename(local(src), local(dst))
  override def delete(f: Path, recursive: Boolean): Boolean = {
    inject("delete", f)
    super.delete(local(f), recursive)
  }
  override def mkdirs(f: Path, permission: FsPermission): Boolean =
    super.mkdirs(local(f), permission)
  override def mkdirs(f: Path): Boolean = super.mkdirs(local(f))
}

/** A failure to inject when a file whose name matches is opened or deleted, or a directory listed.
  */
sealed trait Fault
object Fault {

  /** Deletes the file, then fails as a file removed between listing and reading. */
  case object DeleteOnOpen extends Fault

  /** Fails as a vanished file this many times, then the file reads normally. */
  final case class Vanish(times: Int) extends Fault
  case object AccessDenied extends Fault
  case object Io extends Fault

  /** Holds the opening task until [[FaultInjectingFileSystem.release]] (or 60 s), after signalling
    * [[FaultInjectingFileSystem.awaitBlocked]]: for cancelling a job while it reads.
    */
  case object Block extends Fault
}

object FaultInjectingFileSystem {
  val Scheme = "faulty"

  /** Session settings that register the scheme. */
  val conf: Map[String, String] = Map(
    "spark.hadoop.fs.faulty.impl" -> classOf[FaultInjectingFileSystem].getName,
    "spark.hadoop.fs.faulty.impl.disable.cache" -> "true"
  )

  private val faults = new ConcurrentHashMap[String, Fault]()
  private val vanished = new ConcurrentHashMap[String, AtomicLong]()
  private[testing] val listings = new AtomicLong
  private[testing] val listingsOf = new ConcurrentHashMap[String, AtomicLong]()
  private[testing] val listed = new AtomicLong
  private[testing] val opensOf = new ConcurrentHashMap[String, AtomicLong]()
  private[testing] val stats = new AtomicLong
  private[testing] val statted = ConcurrentHashMap.newKeySet[String]()
  private[testing] val stattedOnDriver = ConcurrentHashMap.newKeySet[String]()

  /** Fails opening (or listing) every file whose name is `name`. */
  def fail(name: String, fault: Fault): Unit = faults.put(name, fault)

  /** Fails `op` ("create", "open", "delete" or "list") of every file whose name matches `regex`,
    * for files whose names are not known in advance (staged parts, UUID names).
    */
  def failMatching(op: String, regex: String, fault: Fault): Unit =
    matching.put(op -> regex.r, fault)

  private val matching = new ConcurrentHashMap[(String, scala.util.matching.Regex), Fault]()

  def reset(): Unit = {
    faults.clear(); matching.clear(); vanished.clear(); resetCounts()
    release()
    blocked.set(new CountDownLatch(1))
  }

  private val held = new AtomicReference(new CountDownLatch(1))
  private val blocked = new AtomicReference(new CountDownLatch(1))

  /** Lets the tasks held by [[Fault.Block]] go on. */
  def release(): Unit = held.getAndSet(new CountDownLatch(1)).countDown()

  /** Waits until a task is held by a [[Fault.Block]] fault; false after `seconds`. */
  def awaitBlocked(seconds: Long): Boolean =
    blocked.get.await(seconds, TimeUnit.SECONDS)
  def resetCounts(): Unit = {
    listings.set(0); listed.set(0); stats.set(0); statted.clear(); listingsOf.clear()
    stattedOnDriver.clear()
    opensOf.clear()
  }

  /** Calls of open on files named `name` since the last reset. */
  def openCalls(name: String): Long = Option(opensOf.get(name)).map(_.get).getOrElse(0L)

  /** Calls of listStatus and listStatusIterator since the last reset. */
  def listCalls: Long = listings.get

  /** Calls of listStatus and listStatusIterator on paths named `name` (e.g. `_delta_log`). */
  def listCalls(name: String): Long = Option(listingsOf.get(name)).map(_.get).getOrElse(0L)

  /** Entries returned by listStatusIterator since the last reset. */
  def listedEntries: Long = listed.get

  /** Calls of getFileStatus (and exists) since the last reset. */
  def statCalls: Long = stats.get

  /** Names of the files getFileStatus was called on since the last reset. */
  def stattedNames: Set[String] = {
    import scala.jdk.CollectionConverters._
    statted.asScala.toSet
  }

  /** The names looked up outside Spark tasks (the driver's own lookups). */
  def stattedOnDriverNames: Set[String] = {
    import scala.jdk.CollectionConverters._
    stattedOnDriver.asScala.toSet
  }

  /** How many times a [[Fault.Vanish]] fault fired for `name`. */
  def vanishCount(name: String): Long =
    Option(vanished.get(name)).map(_.get).getOrElse(0L)

  private def inject(op: String, f: Path): Unit = {
    injectMatching(op, f)
    Option(faults.get(f.getName)).foreach(fire(op, f))
  }

  private[testing] def injectMatching(op: String, f: Path): Unit = {
    import scala.jdk.CollectionConverters._
    matching.asScala
      .collectFirst {
        case ((o, r), fault) if o == op && r.pattern.matcher(f.getName).matches() => fault
      }
      .foreach(fire(op, f))
  }

  private def fire(op: String, f: Path)(fault: Fault): Unit = fault match {
    case Fault.DeleteOnOpen =>
      new java.io.File(f.toUri.getPath).delete()
      throw new FileNotFoundException(s"File $f does not exist")
    case Fault.Vanish(times) =>
      val n = vanished.computeIfAbsent(f.getName, _ => new AtomicLong).incrementAndGet()
      if (n <= times) throw new FileNotFoundException(s"File $f does not exist")
    case Fault.AccessDenied => throw new AccessDeniedException(f.toString, null, s"$op denied")
    case Fault.Io           => throw new IOException(s"injected $op failure on $f")
    case Fault.Block =>
      val hold = held.get
      blocked.get.countDown()
      hold.await(60, TimeUnit.SECONDS)
  }
}
