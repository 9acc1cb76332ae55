package txlog.config

import java.util.{Map => JMap}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.txlog.SqlSettings

import txlog.errors.TxlogErrors
import txlog.config.Setting.{Flag, Names, OptionalWhole, Whole}
import txlog.storage.StoreKind

/** Every `spark.txlog.*` session setting txlog reads, in one place: key, default, meaning. Keys
  * follow one pattern, `spark.txlog.<area>.<name>`, with the area the part of txlog the setting
  * steers and budgets named `max<What>`; two keys renamed to it are still read under their former
  * names. `docs/configuration.md` lists [[all]] (a test keeps the two in step, and another checks
  * that no key is read anywhere else).
  *
  * {{{
  * spark.conf.set(TxlogConf.CommitMaxAttempts.key, "20")
  * val attempts = TxlogConf.CommitMaxAttempts.get(spark) // 20
  * }}}
  */
private[txlog] object TxlogConf {
  private val MiB = 1L << 20

  val CommitMaxAttempts = new Whole(
    "spark.txlog.commit.maxAttempts",
    100,
    "The attempts a commit makes in all: after a lost race without a conflict it is rebased " +
      "and tried again, up to this many; then COMMIT_RETRIES_EXHAUSTED.",
    min = 1,
    max = Int.MaxValue
  )

  val CommitMaxRetryWaitMs = new Whole(
    "spark.txlog.commit.maxRetryWaitMs",
    1000,
    "The longest wait before a commit that lost a race tries again: a random wait (jitter) " +
      "of up to 5 ms before the second attempt, doubling with each attempt up to this, so " +
      "writers that lost together do not retry in step. 0 retries at once.",
    min = 0,
    max = 60000
  )

  val CommitMaxDriverBytes = new Whole(
    "spark.txlog.commit.maxDriverBytes",
    64 * MiB,
    "A commit of at most 50,000 file actions whose lines fit this is checked, tallied and " +
      "written on the driver. A larger one is checked and tallied by Spark jobs and written " +
      "by executors.",
    min = 0,
    bytes = true
  )

  val CheckpointRowsPerFile = new Whole(
    "spark.txlog.checkpoint.rowsPerFile",
    1000000,
    "Actions per part of a multi-part checkpoint and per V2 sidecar, when their number is " +
      "not given.",
    min = 1
  )

  val CheckpointMaxOneTaskLogBytes = new Whole(
    "spark.txlog.checkpoint.maxOneTaskLogBytes",
    4 * MiB,
    "A table whose log (its checkpoint and the commits after it; not a V2 checkpoint's " +
      "sidecars) is at most this size gets its single-file checkpoint written by one task, or " +
      "by the driver without a job when the driver read its log and it has at most 10,000 " +
      "file actions. A larger one is encoded by several tasks whose files are joined. 0: " +
      "always several.",
    min = 0,
    bytes = true
  )

  val ReplayReadThreads = new Whole(
    "spark.txlog.replay.readThreads",
    128,
    "Log files (commits, log compactions) one reader, the driver or a task, reads at once from " +
      "a store that is not a local disk, where each file costs a request's latency; up to 64 " +
      "MiB of them held ahead of the one being parsed. On S3A the readers of one JVM together " +
      "read at most half of `fs.s3a.connection.maximum` files at once. 1 reads one file after " +
      "another. On local disk files are always read one after another.",
    min = 1,
    max = 256
  )

  val DriverMaxReplayBytes = new OptionalWhole(
    "spark.txlog.driver.maxReplayBytes",
    "min(256 MiB, the driver's maximum heap / 8)",
    "The driver heap a replay may hold: a tail is read and reconciled on the driver when its " +
      "lines and rows fit (about 1.4 bytes of heap per byte of JSON, measured), and by tasks " +
      "otherwise. `spark.txlog.replay.maxLocalReadBytes`, when set, bounds the tail instead.",
    min = 0
  )

  val ReplayMaxLocalReadBytes = new OptionalWhole(
    "spark.txlog.replay.maxLocalReadBytes",
    "`spark.txlog.driver.maxReplayBytes` / 1.4 (182 MiB of JSON on a driver of 2 GiB or more)",
    "A tail (the commits and log compactions after the checkpoint) up to this size is read " +
      "and reconciled on the driver, without a job; a larger one by tasks, with a window " +
      "function. 0 reads every tail with Spark.",
    min = 0,
    formerKeys = Seq("spark.txlog.replay.localReadMaxBytes")
  )

  val ReplayMaxDriverCheckpointBytes = new OptionalWhole(
    "spark.txlog.replay.maxDriverCheckpointBytes",
    "32 MiB, or the tail's budget (`spark.txlog.replay.maxLocalReadBytes`) when smaller",
    "Under a small tail, a checkpoint (all parts and sidecars) up to this size is read on " +
      "the driver with parquet-mr; a larger one by Spark jobs, its state rows on the driver " +
      "when its footers confine them to a few row groups. 0 turns the driver reads off.",
    min = 0,
    formerKeys = Seq("spark.txlog.replay.driverCheckpointMaxBytes")
  )

  val ReplayMaxPlannedTailBytes = new Whole(
    "spark.txlog.replay.maxPlannedTailBytes",
    32 * MiB,
    "A tail read on the driver up to this many bytes of JSON gives its file list to Spark as " +
      "rows (its winning actions); past it, tasks read the winning lines again, which the " +
      "driver chose: the rows would travel in every task.",
    min = 0,
    bytes = true,
    formerKeys = Seq("spark.txlog.testing.maxPlannedTailBytes")
  )

  val DriverMaxOverlayBytes = new Whole(
    "spark.txlog.driver.maxOverlayBytes",
    128 * MiB,
    "The file actions since a cached snapshot that update() holds on the driver (its " +
      "overlay). Past it, update() caches the new files and releases the old cache.",
    min = 0,
    bytes = true
  )

  val DriverMaxKeyHashBytes = new Whole(
    "spark.txlog.driver.maxKeyHashBytes",
    128 * MiB,
    "The sorted 64-bit hashes of a large tail's touched keys, broadcast to filter the base " +
      "(the checkpoint, or a cached snapshot) without shuffling it. Past it, the base is " +
      "anti-joined by a shuffle.",
    min = 0,
    bytes = true
  )

  val UpdateMaxIndexedFiles = new Whole(
    "spark.txlog.update.maxIndexedFiles",
    5000000,
    "A cached snapshot with at most this many files and tombstones gets an executor-side " +
      "index, which update() uses to count. Past it, counts scan the cached files.",
    min = 0
  )

  val UpdateMaxOverlayActions = new Whole(
    "spark.txlog.update.maxOverlayActions",
    100000,
    "The overlay's bound counted in file actions, besides " +
      "spark.txlog.driver.maxOverlayBytes; the byte budget is the one that bounds memory.",
    min = 0
  )

  val StorageSingleWriter = new Flag(
    "spark.txlog.storage.singleWriter",
    false,
    "true lets storage without put-if-absent publish by check-then-create (serialised " +
      "within one JVM). Safe only when one writer at a time writes the table."
  )

  val StorageS3LeanGet = new Flag(
    "spark.txlog.storage.leanGet",
    true,
    "On S3A with the AWS SDK v2 (hadoop-aws 3.4+), read log objects of up to 1 MiB with GETs " +
      "signed by the SDK's SigV4 signer with S3A's credentials and sent by the SDK's Apache " +
      "HTTP client, past the SDK's request pipeline and S3A's audit span (so without its " +
      "referrer header); never where S3A's settings change a GET (client-side or customer-key " +
      "encryption, requester pays, custom signers or interceptors, proxies, access points, " +
      "FIPS). Any answer but 200 or 404 is asked again through S3A's client. false: every GET " +
      "through S3A's client."
  )

  val StorageSdkConditionalPut = new Flag(
    "spark.txlog.storage.sdkConditionalPut",
    true,
    "Where the S3 file system has no conditional create (S3A before hadoop-aws 3.4.2: Spark " +
      "3.5 and 4.0; EMRFS), publish log files with a conditional PUT (If-None-Match: *) " +
      "through S3A's own AWS SDK client (v2, or v1 on hadoop-aws 3.3) or, for a file system " +
      "that is not S3A, an SDK v1 client of txlog's own configured from the fs.s3a.* settings " +
      "and the SDK's default chains, once a probe shows the store honours it. false: refused " +
      "(STORAGE_NOT_ATOMIC) unless single-writer mode is on."
  )

  val StorageExclusiveCreateSchemes = new Names(
    "spark.txlog.storage.exclusiveCreateSchemes",
    "Object store schemes whose create(path, overwrite = false) the store itself refuses when " +
      "the object is written if it exists (the GCS connector's ifGenerationMatch=0): there it " +
      "is put-if-absent, once a probe shows it. Empty: none.",
    Seq("gs")
  )

  val StorageAtomicRenameSchemes = new Names(
    "spark.txlog.storage.atomicRenameSchemes",
    "File system schemes besides hdfs whose rename is atomic and fails when the target exists; " +
      "Comma-separated schemes whose FileContext rename refuses an existing target in one " +
      "step. Elsewhere the rename kind is refused (STORAGE_NOT_ATOMIC) unless single-writer " +
      "mode is on."
  )

  val VacuumListingParallelism = new OptionalWhole(
    "spark.txlog.vacuum.listingParallelism",
    "twice the default parallelism",
    "The tasks a full VACUUM spreads the table root's entries over when it lists the table.",
    min = 1
  )

  val VacuumOnDriver = new Flag(
    "spark.txlog.vacuum.onDriver",
    true,
    "A full VACUUM of a table whose log the driver reads without jobs runs there, without Spark " +
      "jobs, while the paths it keeps and deletes fit spark.txlog.driver.maxReplayBytes: the " +
      "directories listed and the files deleted 8 at a time. false: always by Spark jobs."
  )

  val TestingDriverCheckpointStrict = new Flag(
    "spark.txlog.testing.driverCheckpointStrict",
    false,
    "For txlog's tests: a checkpoint read on the driver fails instead of falling back to Spark.",
    internal = true
  )

  /** The per-scheme store kind, `spark.txlog.storage.<scheme>.kind`: local, rename or object. */
  def storageKindKey(scheme: String): String = s"spark.txlog.storage.$scheme.kind"

  /** Keys made per file system scheme: (pattern, default, meaning). */
  val patterns: Seq[(String, String, String)] = Seq(
    (
      storageKindKey("<scheme>"),
      "`local` for `file`, `rename` for `hdfs`, `object` for every other scheme; a `viewfs://` " +
        "path publishes as its mount does",
      "How log files are published on that scheme: `local`, `rename` or `object` (see " +
        "[storage.md](storage.md))."
    )
  )

  /** Every setting, in the order the docs list them. */
  val all: Seq[Setting[_]] = Seq(
    CommitMaxAttempts,
    CommitMaxRetryWaitMs,
    CommitMaxDriverBytes,
    CheckpointRowsPerFile,
    CheckpointMaxOneTaskLogBytes,
    DriverMaxReplayBytes,
    ReplayMaxLocalReadBytes,
    ReplayReadThreads,
    ReplayMaxDriverCheckpointBytes,
    ReplayMaxPlannedTailBytes,
    DriverMaxOverlayBytes,
    DriverMaxKeyHashBytes,
    UpdateMaxIndexedFiles,
    UpdateMaxOverlayActions,
    StorageSingleWriter,
    StorageSdkConditionalPut,
    StorageS3LeanGet,
    StorageExclusiveCreateSchemes,
    StorageAtomicRenameSchemes,
    VacuumListingParallelism,
    VacuumOnDriver,
    TestingDriverCheckpointStrict
  )

  private lazy val byKey: Map[String, Setting[_]] =
    all.flatMap(s => (s.key +: s.formerKeys).map(_ -> s)).toMap

  private val KindKey = """spark\.txlog\.storage\.([a-z][a-z0-9+.-]*)\.kind""".r

  /** INVALID_SETTING for the first `spark.txlog.*` key the session sets that is not one of txlog's
    * settings (a misspelt key would otherwise be ignored without a word) or whose value is bad. Run
    * when a table is opened, before anything is read or written.
    */
  def check(spark: SparkSession): Unit = {
    val sql = spark.sessionState.conf
    val passed = lastPassed.get
    if (passed == null || !SqlSettings.same(sql, passed)) {
      val taken = SqlSettings.take(sql)
      taken.asScala.toSeq.filter(_._1.startsWith("spark.txlog.")).sortBy(_._1).foreach {
        case (k, v) =>
          byKey.get(k) match {
            case Some(s) => s.from(Some(v))
            case None =>
              k match {
                case KindKey(_) => StoreKind.parse(k, v)
                case _ =>
                  throw TxlogErrors.unknownSetting(k, closest(k), "docs/configuration.md")
              }
          }
      }
      lastPassed.set(taken)
    }
  }

  /** The settings the last check passed: the same settings pass again without a walk over them (a
    * check depends on nothing else). Bound: one session's settings.
    */
  private val lastPassed = new java.util.concurrent.atomic.AtomicReference[JMap[String, String]]()

  /** The registered key nearest to `key` by edit distance. */
  private def closest(key: String): String =
    all.map(_.key).minBy(distance(key, _))

  private def distance(a: String, b: String): Int = {
    var prev = Array.tabulate(b.length + 1)(identity)
    a.indices.foreach { i =>
      val cur = new Array[Int](b.length + 1)
      cur(0) = i + 1
      b.indices.foreach { j =>
        val sub = prev(j) + (if (a(i) == b(j)) 0 else 1)
        cur(j + 1) = math.min(sub, math.min(prev(j + 1), cur(j)) + 1)
      }
      prev = cur
    }
    prev(b.length)
  }

  /** The table of `docs/configuration.md`: one markdown row per setting users set. */
  def markdownTable: String = {
    val rows = all.filterNot(_.internal).map { s =>
      val former = s.formerKeys.map(k => s" Formerly `$k`, still read.").mkString
      (s.key, s.defaultText, s.doc + former)
    } ++ patterns
    ("| key | default | meaning |" +: "| --- | --- | --- |" +: rows.map { case (k, d, m) =>
      s"| `$k` | $d | $m |"
    }).mkString("\n")
  }
}
