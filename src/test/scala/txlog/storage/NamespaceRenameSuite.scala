package txlog.storage

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path => NPath}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.functions.typedLit

import txlog.{DeltaLog, Oracle, SparkSuite, TxlogException}
import txlog.testing.Racing
import txlog.txn.TxnTestKit

/** ADLS Gen2 through ABFS: on accounts with a hierarchical namespace log files are published by an
  * atomic rename that refuses an existing target ([[NamespaceRename]]); accounts without one are
  * refused. `abfss:` here is [[AdlsLikeFileSystem]], a stand-in with ABFS's documented behaviour
  * (Azurite serves the Blob API, not the DFS endpoint ABFS needs), not ABFS itself.
  */
class NamespaceRenameSuite extends SparkSuite {
  override def extraConf: Map[String, String] = Map(
    "spark.hadoop.fs.abfss.impl" -> classOf[AdlsLikeFileSystem].getName,
    "spark.hadoop.fs.abfss.impl.disable.cache" -> "true"
  )

  private def commitName(v: Long) = f"$v%020d.json"

  private def newTable(account: String): (String, NPath) = {
    val local = tempDir("adls").resolve("t")
    (AdlsLikeFileSystem.path(account, local), local)
  }

  private def commit(uri: String, file: String) =
    DeltaLog
      .forTable(spark, uri)
      .startTransaction()
      .addFiles(
        TxnTestKit
          .adds(spark, Seq(file))
          .withColumn("partitionValues", typedLit(Map.empty[String, String]))
      )
      .commit()

  private def names(local: NPath): Seq[String] =
    if (!Files.exists(local.resolve("_delta_log"))) Nil
    else
      Files
        .list(local.resolve("_delta_log"))
        .iterator()
        .asScala
        .map(_.getFileName.toString)
        .toSeq
        .sorted

  private def storeOf(uri: String) = {
    val dir = new Path(s"$uri/_delta_log")
    (LogStores.forPath(dir.getFileSystem(spark.sessionState.newHadoopConf()), dir), dir)
  }

  test("hierarchical namespace: put-if-absent and _last_checkpoint by rename; describe says so") {
    val (uri, local) = newTable("hnsacct")
    DeltaLog.createTable(spark, uri, TxnTestKit.schema, Nil, Map.empty)
    assert(commit(uri, "a.parquet").version === 1L)
    val (store, dir) = storeOf(uri)
    val log = local.resolve("_delta_log")
    val before = Files.readAllBytes(log.resolve(commitName(1)))
    assert(!store.putIfAbsent(new Path(dir, commitName(1)), "{}".getBytes(UTF_8)))
    assert(Files.readAllBytes(log.resolve(commitName(1))) === before)
    val hint = new Path(dir, "_last_checkpoint")
    store.overwrite(hint, "one".getBytes(UTF_8))
    store.overwrite(hint, "two".getBytes(UTF_8))
    assert(new String(Files.readAllBytes(log.resolve("_last_checkpoint")), UTF_8) === "two")
    assert(FsEvents.on("rename", "_last_checkpoint").size >= 2)
    val publishing = DeltaLog.forTable(spark, uri).describe().publishing
    assert(publishing.scheme === "abfss" && publishing.concurrentWriters, publishing)
    assert(publishing.method.contains("hierarchical namespace"), publishing)
    // No temporary file is left behind.
    assert(
      names(local).filterNot(_.endsWith(".crc")) ===
        Seq(commitName(0), commitName(1), "_last_checkpoint")
    )
    assert(DeltaLog.forTable(spark, uri).checkpoint().version === 1L)
  }

  test("hierarchical namespace: 4 writers x 10 commits race: each lands once, delta-spark reads") {
    val (uri, local) = newTable("hnsrace")
    DeltaLog.createTable(spark, uri, TxnTestKit.schema, Nil, Map.empty)
    val results = Racing.threads(4, 10)((w, i) => commit(uri, s"w$w-$i.parquet"))
    assert(results.forall(_.committed))
    assert(results.map(_.version).sorted === (1L to 40L))
    val ids = (1L to 40L).map(v => TxnTestKit.commitLines(local, v).head.get("commitInfo"))
    assert(ids.map(_.get("txnId").asText).distinct.size === 40)
    val (ours, ref) = Oracle.both(spark, uri)
    assert(ref.get.version === 40L && ref.get.live.size === 40)
    assert(ours.get === ref.get)
  }

  test("a rename applied whose answer was lost is this commit, committed once") {
    val (uri, local) = newTable("hnsack")
    DeltaLog.createTable(spark, uri, TxnTestKit.schema, Nil, Map.empty)
    FsEvents.putFault.set("renameLost" -> commitName(1))
    val r =
      try commit(uri, "a.parquet")
      finally FsEvents.putFault.set(null)
    assert(r.committed && r.version === 1L && r.attempts === 1, r)
    assert(names(local).filter(_.endsWith(".json")) === Seq(commitName(0), commitName(1)))
  }

  test("a rename refused with no target is LOG_WRITE_FAILED, and nothing is published") {
    val (uri, local) = newTable("hnsrefused")
    DeltaLog.createTable(spark, uri, TxnTestKit.schema, Nil, Map.empty)
    FsEvents.putFault.set("renameRefused" -> commitName(1))
    val e =
      try intercept[TxlogException](commit(uri, "a.parquet"))
      finally FsEvents.putFault.set(null)
    assert(e.errorClass === "LOG_WRITE_FAILED", e)
    assert(e.getMessage.contains(commitName(1)), e.getMessage)
    assert(names(local).filter(_.endsWith(".json")) === Seq(commitName(0)))
    assert(names(local).forall(n => !n.startsWith(".")), names(local))
    assert(commit(uri, "a.parquet").version === 1L)
  }

  test("an account without a hierarchical namespace is refused before anything is written") {
    val (uri, local) = newTable("flatacct")
    val e = intercept[TxlogException] {
      DeltaLog.createTable(spark, uri, TxnTestKit.schema, Nil, Map.empty)
    }
    assert(e.errorClass === "STORAGE_NOT_ATOMIC", e)
    assert(e.getMessage.contains("no hierarchical namespace"), e.getMessage)
    assert(names(local).isEmpty, names(local))
    val (store, dir) = storeOf(uri)
    val publishing = store.publishing(dir)
    assert(!publishing.concurrentWriters && publishing.method.startsWith("refused"), publishing)
    assert(publishing.method.contains("no hierarchical namespace"), publishing)
  }
}
