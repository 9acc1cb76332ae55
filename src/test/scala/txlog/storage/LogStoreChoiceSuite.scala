package txlog.storage

import java.net.URI

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{Path, RawLocalFileSystem}
import org.scalatest.funsuite.AnyFunSuite

import txlog.TxlogException

/** Which [[LogStore]] a path gets: by scheme, overridden by `spark.txlog.storage.<scheme>.kind`. */
class LogStoreChoiceSuite extends AnyFunSuite {
  private def storeFor(path: String, settings: (String, String)*): LogStore = {
    val c = new Configuration()
    settings.foreach { case (k, v) => c.set(k, v) }
    val fs = new RawLocalFileSystem() // not cached: it keeps this configuration
    fs.initialize(URI.create("file:///"), c)
    LogStores.forPath(fs, new Path(path))
  }

  test("defaults: local disks, HDFS-like rename, object stores for the rest") {
    assert(storeFor("file:/t/_delta_log").isInstanceOf[LocalLogStore])
    assert(storeFor("hdfs://nn:8020/t/_delta_log").isInstanceOf[RenameLogStore])
    assert(storeFor("viewfs://c/t/_delta_log").isInstanceOf[RenameLogStore])
    Seq("s3a://b/t", "s3://b/t", "gs://b/t", "abfss://c@a.dfs.core.windows.net/t", "zz://x/t")
      .foreach(p => assert(storeFor(p).isInstanceOf[ObjectLogStore], p))
  }

  test("spark.txlog.storage.<scheme>.kind overrides the default; bad values are refused") {
    val abfs = "abfss://c@a.dfs.core.windows.net/t"
    assert(
      storeFor(abfs, "spark.txlog.storage.abfss.kind" -> "rename").isInstanceOf[RenameLogStore]
    )
    assert(
      storeFor("hdfs://nn/t", "spark.txlog.storage.hdfs.kind" -> "Object")
        .isInstanceOf[ObjectLogStore]
    )
    val bad =
      intercept[TxlogException](storeFor("s3a://b/t", "spark.txlog.storage.s3a.kind" -> "x"))
    assert(bad.errorClass === "INVALID_ARGUMENT")
    val local = intercept[TxlogException](
      storeFor("s3a://b/t", "spark.txlog.storage.s3a.kind" -> "local")
    )
    assert(local.errorClass === "INVALID_ARGUMENT")
  }
}
