package txlog.storage

import java.net.URI
import java.nio.file.{Files, Path => NPath}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.functions.typedLit

import txlog.{DeltaLog, SparkSuite, TxlogException}
import txlog.txn.TxnTestKit

/** Commits on an object store with a conditional create ([[ObjectStoreLikeFileSystem]], `objc:`)
  * when the PUT fails: halfway through the bytes (nothing may appear under the commit's name), or
  * after the object was stored while the client sees an error (the commit is this writer's, and is
  * reported committed once, never committed again at the next version).
  */
class CommitOutcomeSuite extends SparkSuite {
  override def extraConf: Map[String, String] = Map(
    "spark.hadoop.fs.objc.impl" -> classOf[ObjectStoreLikeFileSystem].getName,
    "spark.hadoop.fs.objc.impl.disable.cache" -> "true"
  )

  private def commitName(v: Long) = f"$v%020d.json"

  /** A table (id LONG, part STRING, unpartitioned) at version 0 on `objc:`, and its local dir. */
  private def newTable(): (String, NPath) = {
    val local = tempDir("outcome").resolve("t")
    val uri = new URI("objc", null, local.toString, null).toString
    DeltaLog.createTable(spark, uri, TxnTestKit.schema, Nil, Map.empty)
    (uri, local)
  }

  private def add(path: String) =
    TxnTestKit
      .adds(spark, Seq(path))
      .withColumn("partitionValues", typedLit(Map.empty[String, String]))

  private def withFault[T](kind: String, name: String)(f: => T): T = {
    FsEvents.putFault.set(kind -> name)
    try f
    finally FsEvents.putFault.set(null)
  }

  private def logNames(local: NPath): Seq[String] =
    Files.list(local.resolve("_delta_log")).iterator().asScala.map(_.getFileName.toString).toSeq

  test("a PUT stored while the client sees an error is this commit, committed once") {
    val (uri, local) = newTable()
    val r = withFault("ackLost", commitName(1)) {
      DeltaLog.forTable(spark, uri).startTransaction().addFiles(add("a.parquet")).commit()
    }
    assert(r.committed && r.version === 1L, r)
    assert(!logNames(local).contains(commitName(2)), logNames(local))
    val s = DeltaLog.forTable(spark, uri).update()
    assert(s.version === 1L)
    assert(TxnTestKit.commitLines(local, 1L).count(_.has("add")) === 1)
    // Another writer's commit found at the version is still a lost race: the next one lands.
    val other = DeltaLog.forTable(spark, uri).startTransaction()
    DeltaLog.forTable(spark, uri).startTransaction().addFiles(add("b.parquet")).commit()
    val r3 = other.addFiles(add("c.parquet")).commit()
    assert(r3.version === 3L && r3.attempts === 2, r3)
  }

  test("a PUT that breaks halfway publishes nothing: the commit fails typed, the table is whole") {
    val (uri, local) = newTable()
    val e = intercept[TxlogException](withFault("midWrite", commitName(1)) {
      DeltaLog.forTable(spark, uri).startTransaction().addFiles(add("a.parquet")).commit()
    })
    assert(e.errorClass === "LOG_WRITE_FAILED", e)
    assert(!logNames(local).contains(commitName(1)), logNames(local))
    assert(DeltaLog.forTable(spark, uri).update().version === 0L)
    val r = DeltaLog.forTable(spark, uri).startTransaction().addFiles(add("a.parquet")).commit()
    assert(r.version === 1L)
  }

  test("a _last_checkpoint PUT that breaks halfway leaves the previous one whole") {
    val (uri, local) = newTable()
    val hint = new org.apache.hadoop.fs.Path(s"$uri/_delta_log/_last_checkpoint")
    val fs = hint.getFileSystem(spark.sessionState.newHadoopConf())
    val before = """{"version":0,"size":3}"""
    txlog.log.LogWrites.overwrite(fs, hint, before.getBytes("UTF-8"))
    val e = intercept[TxlogException](withFault("midWrite", "_last_checkpoint") {
      txlog.log.LogWrites.overwrite(fs, hint, """{"version":10,"size":30}""".getBytes("UTF-8"))
    })
    assert(e.errorClass === "LOG_WRITE_FAILED")
    assert(Files.readString(local.resolve("_delta_log").resolve("_last_checkpoint")) === before)
  }
}
