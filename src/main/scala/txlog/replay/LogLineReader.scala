package txlog.replay

import java.io.{InputStream, IOException, InterruptedIOException}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.{FileSystem, FSError, Path}
import org.apache.spark.TaskContext
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.{LongType, StringType, StructType}
import org.apache.spark.storage.StorageLevel

import txlog.config.TxlogConf
import txlog.errors.TxlogErrors
import txlog.log.TablePath
import txlog.protocol.FileInfo
import txlog.storage.LogObjectOpen
import txlog.util.SerializableConf

/** Reads newline-delimited JSON log files (commits, log compactions, JSON checkpoints) as rows of
  * (version, idx, file, line). `idx` is the line's position in its file, so that later actions of
  * one commit win over earlier ones.
  *
  * Spark's file sources pay a per-file cost that dominates on logs of many small commits, so the
  * files are read here: a small tail on the driver as a local relation (no job), a large one by
  * tasks that each read a batch of files through the Hadoop FileSystem API.
  */
private[txlog] object LogLineReader {
  val schema: StructType = new StructType()
    .add("version", LongType, nullable = false)
    .add("idx", LongType, nullable = false)
    .add("file", StringType, nullable = false)
    .add("line", StringType, nullable = false)

  /** Tails up to this many bytes are read on the driver. By default the driver's replay budget
    * ([[DriverBudgets.maxReplayBytes]]) divided by the heap a byte of JSON takes there: 32 MiB of
    * JSON (about 30,000 file actions with stats) keeps about 45 MiB on the driver's heap (measured
    * on the bench's W2 table). On the driver such a tail is read without a job's fixed costs (W2's
    * 89 MB: 2 to 3 times faster than tasks on a 2-core machine, cold).
    */
  val LocalReadMaxBytesConf: String = TxlogConf.ReplayMaxLocalReadBytes.key

  /** A tail read on the driver up to this many bytes of JSON
    * (`spark.txlog.replay.maxPlannedTailBytes`, 32 MiB) gives its full file list as a local
    * relation built from its rows; past it tasks read its files again for the list (a plan that
    * carries 100,000 actions is slower to ship to tasks than the files are to read: the bench's
    * W2-files took 5.7 s instead of 1.9 s). Its state and counts come from the driver either way.
    */
  def maxPlannedTailBytes(spark: SparkSession): Long =
    TxlogConf.ReplayMaxPlannedTailBytes.get(spark)

  /** Bytes of heap a byte of a tail's JSON takes on the driver, as a fraction (45 / 32 MiB). */
  private val HeapPerJsonByte = (45L, 32L)

  /** The budget of [[LocalReadMaxBytesConf]] in force. */
  def localReadMaxBytes(spark: SparkSession): Long =
    TxlogConf.ReplayMaxLocalReadBytes
      .get(spark)
      .getOrElse(DriverBudgets.maxReplayBytes(spark) * HeapPerJsonByte._2 / HeapPerJsonByte._1)

  /** Bytes of log one read task takes on. */
  private val BytesPerTask = 16L * 1024 * 1024

  /** Whether files of this many bytes are read on the driver. */
  def readsOnDriver(spark: SparkSession, bytes: Long): Boolean = bytes <= localReadMaxBytes(spark)

  /** Files one reader reads at once from `fs` ([[TxlogConf.ReplayReadThreads]] on a store that is
    * not a local disk, else 1); on S3A all readers of a JVM together within [[ReadPermits]].
    */
  def readThreads(spark: SparkSession, fs: FileSystem): Int =
    if (localDisk(fs)) 1 else TxlogConf.ReplayReadThreads.get(spark).toInt

  private def localDisk(fs: FileSystem): Boolean = fs.getUri.getScheme == "file"

  /** The lines of `files` as rows of [[schema]] (with `only`, those of its lines alone): read on
    * the driver within its budget, else (or with `byTasks`) by tasks. With `keep`, lines read by
    * tasks from a store that is not a local disk are kept by the executors (memory, then disk) once
    * read, for every job over the result to parse them again without requests to the store; they
    * are released when the result is no longer referenced (Spark's context cleaner), as a snapshot
    * built on them is dropped.
    */
  def read(
      spark: SparkSession,
      table: TablePath,
      files: Seq[(Long, FileInfo)],
      keep: Boolean = false,
      byTasks: Boolean = false,
      only: Option[LineSet] = None
  ): DataFrame = {
    val bytes = files.map(_._2.size).sum
    val threads = readThreads(spark, table.fs)
    if (files.isEmpty) spark.createDataFrame(java.util.List.of[Row](), schema)
    else if (!byTasks && readsOnDriver(spark, bytes)) {
      val lines = readOnDriver(table, files, threads)
      val kept = only.fold(lines)(w => lines.filter(r => w.contains(r.getLong(0), r.getLong(1))))
      spark.createDataFrame(kept.asJava, schema)
    } else {
      val conf = new SerializableConf(table.readConf)
      val slices = math
        .max(
          math.min(files.size.toLong, spark.sparkContext.defaultParallelism.toLong * 2),
          bytes / BytesPerTask + 1
        )
        .min(files.size.toLong)
        .toInt
      val work = files.map { case (v, f) => (v, f.path, f.size) }
      val root = table.root
      val rdd = spark.sparkContext.parallelize(work, slices).mapPartitions { it =>
        // One file system per task: with the local-file read options it is not cached.
        lazy val fs = new Path(root).getFileSystem(conf.value)
        lazy val read = only.fold(reader(fs)) { wanted =>
          val all = reader(fs)
          (v: Long, p: String, size: Long) =>
            all(v, p, size).filter(r => wanted.contains(r.getLong(0), r.getLong(1)))
        }
        if (threads <= 1) it.flatMap { case (v, p, size) => read(v, p, size) }
        else {
          val ahead = new LogFilePrefetch(it.toIndexedSeq, threads, read, ReadPermits.of(fs))
          TaskContext.get().addTaskCompletionListener[Unit](_ => ahead.close())
          ahead
        }
      }
      rdd.setName(s"txlog: read ${files.size} log files")
      if (keep && !localDisk(table.fs)) rdd.persist(StorageLevel.MEMORY_AND_DISK)
      spark.createDataFrame(rdd, schema)
    }
  }

  /** The lines of `files`, read on the driver, `threads` files at a time ([[LogFilePrefetch]]), as
    * rows of [[schema]].
    */
  def readOnDriver(table: TablePath, files: Seq[(Long, FileInfo)], threads: Int = 1): Seq[Row] = {
    val fs = table.fs
    val read = reader(fs)
    if (threads <= 1 || files.size <= 1) files.flatMap { case (v, f) =>
      read(v, f.path, f.size)
    }
    else {
      val work = files.map { case (v, f) => (v, f.path, f.size) }.toIndexedSeq
      val ahead = new LogFilePrefetch(work, threads, read, ReadPermits.of(fs))
      try ahead.toVector
      finally ahead.close()
    }
  }

  /** The reader of one log file's lines (version, path, size in bytes) from `fs`, opening each file
    * the cheapest way the file system has.
    */
  private def reader(fs: FileSystem): (Long, String, Long) => Iterator[Row] = {
    // On S3A one GET instead of S3A's HEAD and GET (log files are never rewritten); on a local
    // disk, no stat: [[LogObjectOpen]].
    val open = LogObjectOpen
      .of(fs)
      .map(get => (p: Path, _: Int) => get(p))
      .getOrElse((p: Path, buffer: Int) => fs.open(p, buffer))
    (version, file, size) => lines(open, version, file, size)
  }

  /** Bytes buffered to read a file of `size` bytes: the file and one more (to see its end in one
    * read), within 4 KiB to 64 KiB. A buffer per file, so a log of many small commits is not read
    * through 64 KiB buffers each.
    */
  private[replay] def bufferSize(size: Long): Int =
    math.min(MaxBufferBytes, math.max(MinBufferBytes, size + 1)).toInt
  private val MinBufferBytes = 4096L
  private val MaxBufferBytes = 64L * 1024

  /** The non-blank lines of `file` with their positions, split as `BufferedReader.readLine` does
    * ("\n", "\r" or "\r\n" ends a line), streamed: one line is held at a time (see
    * [[LineSplitter]]). The file is closed when the last line has been read. A storage failure (an
    * IOException, or the FSError the local file system wraps one in) raises LOG_READ_FAILED naming
    * the file and its version; an interrupted read propagates as it is.
    */
  private def lines(
      openFile: (Path, Int) => InputStream,
      version: Long,
      file: String,
      size: Long
  ): Iterator[Row] = {
    val buffer = bufferSize(size)
    val in = failing(version, file)(openFile(new Path(file), buffer))
    val split = new LineSplitter(in, buffer)
    new Iterator[Row] {
      private var open = true
      def hasNext: Boolean = open && {
        val more =
          try failing(version, file)(split.hasNext)
          catch { case e: Throwable => in.close(); open = false; throw e }
        if (!more) { in.close(); open = false }
        more
      }
      def next(): Row = {
        val (idx, line) = split.next()
        Row(version, idx, file, line)
      }
    }
  }

  private def failing[T](version: Long, file: String)(body: => T): T =
    try body
    catch {
      case e: InterruptedIOException => throw e
      case e @ (_: IOException | _: FSError) =>
        throw TxlogErrors.logReadFailed(
          file,
          Some(version),
          s"${e.getClass.getSimpleName}: ${String.valueOf(e.getMessage).take(300)}",
          e
        )
    }
}
