package txlog.storage

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path => NPath, Paths}
import java.util.concurrent.TimeUnit

import scala.jdk.CollectionConverters._
import scala.sys.process.{Process, ProcessLogger}

import com.fasterxml.jackson.databind.ObjectMapper

import txlog.{DeltaLog, Oracle}
import txlog.protocol.FileNames
import txlog.testing.WriterProcess
import txlog.txn.TxnTestKit.schema

/** On demand (`make test-s3-race`, which sets `-Dtxlog.s3ProcessRace=<commits per writer>`): four
  * txlog writer processes ([[WriterProcess]]) and one delta-rs writer process race on one table on
  * the local S3 server, each with its line's S3 publishing (S3A's conditional create on Spark 4.1
  * and 4.2, the conditional PUT through S3A's SDK client, v2 or v1, on 4.0 and 3.5), and again
  * through an `s3://` file system that is not S3A ([[S3StandInFileSystem]], as EMRFS), where txlog
  * publishes through an SDK client of its own; delta-rs (`tests/scripts/s3_delta_rs.py`) publishes
  * with its own conditional PUT. Every commit lands once, versions are contiguous, and delta-rs
  * reads every version as txlog does.
  */
class S3ProcessRaceSuite extends S3SparkSuite {
  private val bucket = "txlog-procrace"
  def buckets: Seq[String] = Seq(bucket)

  private val perWriter = sys.props.get("txlog.s3ProcessRace").map(_.toInt)
  private val python = Paths.get(".venv", "bin", "python")
  private val script = Paths.get("tests", "scripts", "s3_delta_rs.py")
  private val props = Map("delta.checkpointInterval" -> "1000")

  // Not on demand: no server to start (the test cancels itself).
  override def beforeAll(): Unit = if (perWriter.isDefined) super.beforeAll()

  private def deltaRs(args: String*): (Int, String, String) = {
    val (out, err) = (new StringBuilder, new StringBuilder)
    val env = Seq(
      "TXLOG_S3_ENDPOINT" -> s3.endpoint,
      "TXLOG_S3_ACCESS_KEY" -> S3Proxy.Identity,
      "TXLOG_S3_SECRET_KEY" -> S3Proxy.Credential
    )
    val code =
      Process(Seq(python.toString, script.toString) ++ args, None, env: _*) ! ProcessLogger(
        l => out.append(l).append('\n'),
        l => err.append(l).append('\n')
      )
    (code, out.toString, err.toString)
  }

  private def results(f: NPath): Seq[(Long, String)] =
    if (!Files.exists(f)) Nil
    else
      Files.readAllLines(f).asScala.toSeq.filter(_.nonEmpty).map { l =>
        val Array(v, _, p) = l.split(" ")
        (v.toLong, p)
      }

  // s3:// is a file system that is not S3A (as EMRFS): txlog's own SDK client publishes there.
  override def suiteConf: Map[String, String] =
    Map("spark.hadoop.fs.s3.impl" -> classOf[S3StandInFileSystem].getName)

  test("4 txlog writer processes and delta-rs race on S3 through S3A: each commit lands once") {
    race("s3a", "t")
  }

  test("the same through an S3 file system that is not S3A (EMRFS): txlog's own SDK client") {
    race("s3", "emrfs")
  }

  private def race(scheme: String, table: String): Unit = {
    assume(perWriter.isDefined, "on demand: make test-s3-race (-Dtxlog.s3ProcessRace=N)")
    assume(Files.exists(python), "no project virtualenv (make venv) for delta-rs")
    val n = perWriter.get
    val p = s"$scheme://$bucket/$table"
    DeltaLog.createTable(spark, p, schema, Nil, props)
    val work = tempDir("s3procs")
    val started = System.nanoTime()
    val writers = (1 to 4).map { id =>
      id -> WriterProcess.start(
        p,
        id,
        n,
        work.resolve(s"w$id.txt"),
        work.resolve(s"w$id.log"),
        // In memory: the writer's file: scheme is not a LocalFileSystem, which S3A's disk
        // buffers ask for (hadoop-aws 3.5).
        s3.sparkConf ++ suiteConf + ("spark.hadoop.fs.s3a.fast.upload.buffer" -> "array")
      )
    }
    val rs = deltaRs("append", s"s3://$bucket/$table", n.toString)
    writers.foreach { case (id, proc) =>
      if (!proc.waitFor(1200, TimeUnit.SECONDS)) proc.destroyForcibly()
      val log = work.resolve(s"w$id.log")
      assert(proc.exitValue() === 0, Files.readAllLines(log).asScala.takeRight(30).mkString("\n"))
    }
    assert(rs._1 === 0, rs._3)
    val seconds = (System.nanoTime() - started) / 1e9
    val ours = (1 to 4).flatMap(id => results(work.resolve(s"w$id.txt")))
    val latest = 5L * n
    assert(ours.size === 4 * n && ours.map(_._2).distinct.size === 4 * n)
    val keys =
      s3.keys(bucket, s"$table/_delta_log/").map(_.split('/').last).filter(_.endsWith(".json"))
    assert(keys === (0L to latest).map(FileNames.commitName(_)))
    // The versions txlog's writers did not get are delta-rs's: one data file each.
    val json = new ObjectMapper()
    val theirs = ((1L to latest).toSet -- ours.map(_._1)).toSeq.sorted
    assert(theirs.size === n, theirs)
    theirs.foreach { v =>
      val key = s"$table/_delta_log/${FileNames.commitName(v)}"
      val text = new String(s3.get(bucket, key), UTF_8)
      val adds = text.linesIterator.map(json.readTree).filter(_.has("add")).toSeq
      assert(adds.size === 1 && adds.head.get("add").get("path").asText.startsWith("part-"), text)
    }
    // delta-rs reads every version, as txlog does.
    val (code, out, err) = deltaRs("versions", s"s3://$bucket/$table")
    assert(code === 0, err)
    val counts = json.readTree(out)
    val log = DeltaLog.forTable(spark, p)
    (0L to latest).foreach { v =>
      assert(counts.get(v.toString).asLong === log.snapshot(v).numFiles, s"version $v")
    }
    val (txlog, ref) = Oracle.both(spark, p)
    assert(ref.get.version === latest && ref.get.live.size === 5 * n)
    assert(txlog.get === ref.get)
    info(
      f"${4 * n} txlog commits (4 processes) and $n delta-rs commits in $seconds%.0f s; " +
        s"publishing: ${log.describe().publishing.method}"
    )
  }
}
