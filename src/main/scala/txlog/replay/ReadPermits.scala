package txlog.replay

import java.util.{Collections, WeakHashMap}
import java.util.concurrent.Semaphore

import org.apache.hadoop.fs.FileSystem

import txlog.storage.S3PutClient

/** The bound on log files read at once from one file system by all the readers of this JVM (the
  * driver's, and the tasks an executor runs at once), where the file system has a connection pool
  * that a read holds while it runs: S3A, whose `fs.s3a.connection.maximum` connections (96 by
  * default on hadoop-aws 3.3, 500 on 3.4 and later) its own streams share. Reads ahead take half of
  * them at most, so that `spark.txlog.replay.readThreads` per reader times the tasks of an executor
  * never leaves a request waiting for a connection (on hadoop-aws 3.3 such a wait fails after the
  * pool's timeout). Other file systems have no such bound.
  *
  * Driver and executor memory: one semaphore per S3A file system instance, held weakly (dropped
  * with its file system).
  */
private[txlog] object ReadPermits {
  val PoolKey = "fs.s3a.connection.maximum"

  /** hadoop-aws 3.3's default, for a configuration that has none (core-default.xml sets it). */
  private val DefaultPool = 96

  private val byFs = Collections.synchronizedMap(new WeakHashMap[FileSystem, Semaphore]())

  /** The permits shared by the readers of `fs`, if it has a connection pool to stay within. */
  def of(fs: FileSystem): Option[Semaphore] =
    if (fs == null || !S3PutClient.isS3A(fs.getClass)) None
    else Some(byFs.computeIfAbsent(fs, f => new Semaphore(permits(f.getConf.getInt(PoolKey, 0)))))

  /** Reads at once for a pool of `connections` (not set or not positive: hadoop-aws 3.3's 96). */
  def permits(connections: Int): Int =
    math.max(1, (if (connections > 0) connections else DefaultPool) / 2)
}
