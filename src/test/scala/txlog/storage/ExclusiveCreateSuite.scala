package txlog.storage

import java.net.URI
import java.nio.file.{Files, Path => NPath}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.functions.typedLit

import txlog.{DeltaLog, Oracle, SparkSuite, TxlogException}
import txlog.config.TxlogConf
import txlog.testing.Racing
import txlog.txn.TxnTestKit

/** Put-if-absent as `create(path, overwrite = false)` where the store refuses it when the object is
  * written ([[ExclusiveCreate]]): `gs:` here is [[ObjectStoreLikeFileSystem]] standing for the
  * Google Cloud Storage connector's documented behaviour (an upload conditional on
  * `ifGenerationMatch=0`), not the connector itself. Stores that fail the probe (a create that only
  * checks first; a file visible before it is closed) are refused before anything is written.
  */
class ExclusiveCreateSuite extends SparkSuite {
  override def extraConf: Map[String, String] =
    Seq("gs", "objn", "objv").flatMap { s =>
      Seq(
        s"spark.hadoop.fs.$s.impl" -> classOf[ObjectStoreLikeFileSystem].getName,
        s"spark.hadoop.fs.$s.impl.disable.cache" -> "true"
      )
    }.toMap

  private val schemesKey = TxlogConf.StorageExclusiveCreateSchemes.key
  private def commitName(v: Long) = f"$v%020d.json"

  private def newTable(scheme: String): (String, NPath) = {
    val local = tempDir("exclusive").resolve("t")
    (new URI(scheme, null, local.toString, null).toString, local)
  }

  private def add(path: String) =
    TxnTestKit
      .adds(spark, Seq(path))
      .withColumn("partitionValues", typedLit(Map.empty[String, String]))

  private def commit(uri: String, file: String) =
    DeltaLog.forTable(spark, uri).startTransaction().addFiles(add(file)).commit()

  private def names(local: NPath): Seq[String] =
    if (!Files.exists(local.resolve("_delta_log"))) Nil
    else
      Files.list(local.resolve("_delta_log")).iterator().asScala.map(_.getFileName.toString).toSeq

  private def withSchemes[T](schemes: String)(f: => T): T = {
    spark.conf.set(schemesKey, schemes)
    try f
    finally spark.conf.unset(schemesKey)
  }

  test("gs: a create the store refuses on upload is put-if-absent; describe says so") {
    val (uri, local) = newTable("gs")
    DeltaLog.createTable(spark, uri, TxnTestKit.schema, Nil, Map.empty)
    assert(commit(uri, "a.parquet").version === 1L)
    val dir = new Path(s"$uri/_delta_log")
    val fs = dir.getFileSystem(spark.sessionState.newHadoopConf())
    val store = LogStores.forPath(fs, dir)
    val before = Files.readAllBytes(local.resolve("_delta_log").resolve(commitName(1)))
    assert(!store.putIfAbsent(new Path(dir, commitName(1)), "{}".getBytes("UTF-8")))
    assert(Files.readAllBytes(local.resolve("_delta_log").resolve(commitName(1))) === before)
    val publishing = DeltaLog.forTable(spark, uri).describe().publishing
    assert(publishing.scheme === "gs" && publishing.concurrentWriters, publishing)
    assert(publishing.method.startsWith("exclusive create"), publishing)
    assert(!publishing.method.contains("probed"), publishing)
    // The probe's file is gone: only the two commits (and their checksums).
    assert(names(local).filterNot(_.endsWith(".crc")).sorted === Seq(commitName(0), commitName(1)))
    val s = DeltaLog.forTable(spark, uri).update()
    assert(s.version === 1L && s.allFiles.count() === 1L)
  }

  test("gs: 4 writers x 10 commits race: each lands once, versions contiguous") {
    val (uri, local) = newTable("gs")
    DeltaLog.createTable(spark, uri, TxnTestKit.schema, Nil, Map.empty)
    val results = Racing.threads(4, 10)((w, i) => commit(uri, s"w$w-$i.parquet"))
    assert(results.forall(_.committed))
    assert(results.map(_.version).sorted === (1L to 40L))
    val ids = (1L to 40L).map(v => TxnTestKit.commitLines(local, v).head.get("commitInfo"))
    assert(ids.map(_.get("txnId").asText).distinct.size === 40)
    // delta-spark reads the table through its local path (it has no gs: store here).
    val ref = Oracle.reference(spark, local.toString, None)
    assert(ref.version === 40L && ref.live.size === 40)
  }

  test("gs: a PUT stored while the client sees an error is this commit, committed once") {
    val (uri, local) = newTable("gs")
    DeltaLog.createTable(spark, uri, TxnTestKit.schema, Nil, Map.empty)
    FsEvents.putFault.set("ackLost" -> commitName(1))
    val r =
      try commit(uri, "a.parquet")
      finally FsEvents.putFault.set(null)
    assert(r.committed && r.version === 1L && r.attempts === 1, r)
    assert(names(local).filter(_.endsWith(".json")).sorted === Seq(commitName(0), commitName(1)))
  }

  test("a create that only checks first, or shows a file before it is whole, is refused") {
    Seq(
      "objn" -> "succeeded too",
      "objv" -> "visible before its stream is closed"
    ).foreach { case (scheme, why) =>
      withSchemes(s"gs,$scheme") {
        val (uri, local) = newTable(scheme)
        val e = intercept[TxlogException] {
          DeltaLog.createTable(spark, uri, TxnTestKit.schema, Nil, Map.empty)
        }
        assert(e.errorClass === "STORAGE_NOT_ATOMIC", e)
        assert(e.getMessage.contains(why), e.getMessage)
        assert(names(local).isEmpty, names(local))
        val dir = new Path(s"$uri/_delta_log")
        val fs = dir.getFileSystem(spark.sessionState.newHadoopConf())
        val publishing = LogStores.forPath(fs, dir).publishing(dir)
        assert(publishing.method.startsWith("refused") && publishing.method.contains(why))
      }
    }
  }

  test("without gs in spark.txlog.storage.exclusiveCreateSchemes, gs: is refused") {
    withSchemes("") {
      val (uri, local) = newTable("gs")
      val e = intercept[TxlogException] {
        DeltaLog.createTable(spark, uri, TxnTestKit.schema, Nil, Map.empty)
      }
      assert(e.errorClass === "STORAGE_NOT_ATOMIC", e)
      assert(names(local).isEmpty)
    }
  }
}
