package txlog.storage

import java.nio.charset.StandardCharsets.UTF_8

import txlog.{CheckpointResult, DeltaLog, Oracle, TxlogException}
import txlog.log.{LastCheckpoint, LogWrites}
import txlog.protocol.FileNames
import txlog.storage.S3Faults.{BreakRead, FailPut, LoseAck}
import txlog.txn.TxnTestKit.{adds, schema}

/** Commits, checkpoints and `_last_checkpoint` on S3 (S3A against the local server) when a request
  * fails: a copy that breaks halfway (the staged bytes cannot be read to the end), a PUT that never
  * gets through, and a PUT the server stored while the client saw an error ([[S3Faults]]). Nothing
  * partial ever appears under a log file's name; a failed write is a typed error that leaves the
  * table as it was and writable; a write that landed is reported once, never made again.
  */
class S3FaultsSuite extends S3SparkSuite {
  private val bucket = "txlog-faults"
  def buckets: Seq[String] = Seq(bucket)
  override def suiteConf: Map[String, String] = Map(
    "spark.hadoop.fs.s3a.audit.enabled" -> "true",
    "spark.hadoop.fs.s3a.audit.execution.interceptors" -> classOf[S3FaultInterceptor].getName,
    // S3A's classic input stream (Hadoop 3.5 defaults to the analytics accelerator, which reads a
    // small parquet file whole from its first byte): a parquet reader's ranges then start after
    // the magic bytes, and a read from the first byte is the publishing copy's.
    "spark.hadoop.fs.s3a.input.stream.type" -> "classic"
  )

  /** No checkpoint every 10 commits unless a test asks for one. */
  private val props = Map("delta.checkpointInterval" -> "1000")

  override def beforeAll(): Unit = {
    super.beforeAll()
    // Whether the interceptor is installed: a fault that hit nothing tests nothing. (Where S3A has
    // no put-if-absent, every test cancels itself and nothing is probed.)
    if (atomicPut(bucket)) {
      S3Faults.during(FailPut(_.endsWith("probe"))) {
        intercept[Exception](LogWrites.overwrite(fsOf(s"s3a://$bucket/"), path("probe"), Array(1)))
      }
      val hits = S3Faults.hits
      assert(hits.nonEmpty && hits.forall(_ == "PUT probe failed"), s"no interceptor: $hits")
    }
  }

  private def path(name: String) = new org.apache.hadoop.fs.Path(s"s3a://$bucket/$name")

  /** Cancels a test where S3A offers no put-if-absent: neither its conditional create (3.4.2+) nor
    * an AWS SDK v2 client for the SDK's conditional PUT (3.4.0+).
    */
  private def assumeConditional(): Unit =
    assume(atomicPut(bucket), "this Hadoop's S3A has no put-if-absent (3.4.0+)")

  private def names(table: String): Seq[String] =
    s3.keys(bucket, s"$table/_delta_log/").map(_.stripPrefix(s"$table/_delta_log/"))

  /** A table at version 0 and its path. */
  private def newTable(name: String): String = {
    val p = s"s3a://$bucket/$name"
    DeltaLog.createTable(spark, p, schema, Seq("part"), props)
    p
  }

  private def commit(p: String, files: String*) =
    DeltaLog.forTable(spark, p).startTransaction().addFiles(adds(spark, files)).commit()

  private def assertNoLeftovers(table: String): Unit = {
    val left = names(table).filter(n => n.startsWith(".") || n.contains("/"))
    assert(left.isEmpty, s"staging or temporary files left: $left")
  }

  private def commitKey(v: Long): String => Boolean = _.endsWith(FileNames.commitName(v))

  private def writeFailed(e: TxlogException, what: String): Unit = {
    assert(e.errorClass === "LOG_WRITE_FAILED", e)
    assert(e.getMessage.contains(what), e.getMessage)
  }

  test("a commit whose staged bytes break halfway through the copy publishes nothing") {
    assumeConditional()
    val p = newTable("copy")
    // A body over the driver budget is staged by a Spark job, then copied into the commit's PUT.
    spark.conf.set("spark.txlog.commit.maxDriverBytes", "1")
    val e =
      try {
        S3Faults.during(BreakRead(k => k.contains(".json.") && k.endsWith(".tmp"))) {
          intercept[TxlogException](commit(p, "a.parquet", "b.parquet"))
        }
      } finally spark.conf.unset("spark.txlog.commit.maxDriverBytes")
    assert(S3Faults.hits.nonEmpty && S3Faults.hits.forall(_.contains("broken")), S3Faults.hits)
    writeFailed(e, FileNames.commitName(1))
    assert(!names("copy").contains(FileNames.commitName(1)), names("copy"))
    assertNoLeftovers("copy")
    assert(Oracle.reference(spark, p, None).version === 0L)
    val r = commit(p, "a.parquet")
    assert(r.version === 1L && r.attempts === 1, r)
  }

  test("a commit whose PUT fails on every attempt publishes nothing and fails typed") {
    assumeConditional()
    val p = newTable("put")
    val publishing = DeltaLog.forTable(spark, p).describe().publishing
    assert(publishing.scheme === "s3a" && publishing.concurrentWriters, publishing)
    val e = S3Faults.during(FailPut(commitKey(1))) {
      intercept[TxlogException](commit(p, "a.parquet"))
    }
    assert(S3Faults.hits.size >= 1, S3Faults.hits)
    writeFailed(e, FileNames.commitName(1))
    assert(names("put").filter(_.endsWith(".json")) === Seq(FileNames.commitName(0)))
    assert(DeltaLog.forTable(spark, p).update().version === 0L)
    assert(commit(p, "a.parquet").version === 1L)
  }

  test("a commit stored while the client saw an error is reported committed, once") {
    assumeConditional()
    val p = newTable("ack")
    val r = S3Faults.during(LoseAck(commitKey(1)))(commit(p, "a.parquet"))
    assert(S3Faults.hits.headOption.exists(_.endsWith("lost")), S3Faults.hits)
    assert(r.committed && r.version === 1L && r.attempts === 1, r)
    assert(names("ack").filter(_.endsWith(".json")) === (0 to 1).map(v => FileNames.commitName(v)))
    val ref = Oracle.reference(spark, p, None)
    assert(ref.version === 1L && ref.live.map(_._1.split('/').last) === Set("a.parquet"), ref)
    assertNoLeftovers("ack")
    // Another writer's commit at the version is still a lost race: the writer moves on.
    val other = DeltaLog.forTable(spark, p).startTransaction().addFiles(adds(spark, Seq("c")))
    commit(p, "b.parquet")
    val r3 = S3Faults.during(LoseAck(commitKey(3)))(other.commit())
    assert(r3.version === 3L && r3.attempts === 2, r3)
    assert(Oracle.reference(spark, p, None).live.size === 3)
  }

  private def checkpointKey(v: Long): String => Boolean =
    _.endsWith(FileNames.classicCheckpointName(v))

  private def hint(table: String): Option[LastCheckpoint] =
    names(table)
      .find(_ == "_last_checkpoint")
      .map(n => new String(s3.get(bucket, s"$table/_delta_log/$n"), UTF_8))
      .map(t => LastCheckpoint.parse(t).fold(e => fail(s"a partial hint: $e"), identity))

  /** A checkpoint of `p` at version 1 fails typed under `fault`, publishing nothing; a checkpoint
    * taken afterwards is written.
    */
  private def checkpointFails(p: String, table: String, fault: S3Faults.Fault): Unit = {
    val e = S3Faults.during(fault) {
      intercept[TxlogException](DeltaLog.forTable(spark, p).checkpoint())
    }
    assert(S3Faults.hits.nonEmpty && S3Faults.hits.forall(_.contains("broken")), S3Faults.hits)
    writeFailed(e, FileNames.classicCheckpointName(1))
    assert(!names(table).exists(_.contains(".checkpoint.")), names(table))
    assert(hint(table).isEmpty)
    assertNoLeftovers(table)
    val (ours, ref) = Oracle.both(spark, p)
    assert(ours.get === ref.get && ref.get.version === 1L)
    val again: CheckpointResult = DeltaLog.forTable(spark, p).checkpoint()
    assert(!again.alreadyExisted && again.version === 1L, again)
    assert(hint(table).map(_.version) === Some(1L))
  }

  test("a checkpoint whose staged file breaks halfway through the copy publishes nothing") {
    assumeConditional()
    val p = newTable("cpcopy")
    commit(p, "a.parquet")
    checkpointFails(p, "cpcopy", BreakRead(k => k.contains(".txlog-staging-")))
  }

  test("a checkpoint whose staged files cannot be read back is a typed write failure") {
    assumeConditional()
    val p = newTable("cpverify")
    commit(p, "a.parquet")
    checkpointFails(p, "cpverify", BreakRead(_.contains(".txlog-staging-"), anyRange = true))
  }

  test("a checkpoint stored while the client saw an error is the checkpoint; the hint names it") {
    assumeConditional()
    val p = newTable("cpack")
    commit(p, "a.parquet")
    val r = S3Faults.during(LoseAck(checkpointKey(1)))(DeltaLog.forTable(spark, p).checkpoint())
    assert(S3Faults.hits.headOption.exists(_.endsWith("lost")), S3Faults.hits)
    // The file under the name is whole, and it is the only checkpoint of the version.
    assert(r.version === 1L && r.files.size === 1, r)
    assert(names("cpack").count(_.contains(".checkpoint.")) === 1, names("cpack"))
    assert(hint("cpack").map(_.version) === Some(1L))
    assertNoLeftovers("cpack")
    val (ours, ref) = Oracle.both(spark, p)
    assert(ours.get === ref.get && ref.get.version === 1L)
    assert(ref.get.live.size === 1)
  }

  test("a _last_checkpoint PUT that fails leaves the previous hint whole; a lost answer lands") {
    assumeConditional()
    val p = newTable("hint")
    commit(p, "a.parquet")
    DeltaLog.forTable(spark, p).checkpoint()
    val before = hint("hint")
    assert(before.map(_.version) === Some(1L))
    commit(p, "b.parquet")
    val isHint: String => Boolean = _.endsWith("/_last_checkpoint")
    val e = S3Faults.during(FailPut(isHint)) {
      intercept[TxlogException](DeltaLog.forTable(spark, p).checkpoint())
    }
    writeFailed(e, "_last_checkpoint")
    // The checkpoint of version 2 is published; the hint still names version 1, whole.
    assert(hint("hint") === before)
    assert(names("hint").contains(FileNames.classicCheckpointName(2)), names("hint"))
    assert(Oracle.both(spark, p) match { case (o, r) => o.get === r.get })

    commit(p, "c.parquet")
    S3Faults.during(LoseAck(isHint))(DeltaLog.forTable(spark, p).checkpoint())
    assert(S3Faults.hits.headOption.exists(_.endsWith("lost")), S3Faults.hits)
    assert(hint("hint").map(_.version) === Some(3L))
    assertNoLeftovers("hint")
  }
}
