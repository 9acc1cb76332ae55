package txlog.storage

import java.net.URI

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{Path, RawLocalFileSystem}
import org.scalatest.funsuite.AnyFunSuite

import txlog.TxlogException

/** Which [[LogStore]] a path gets: by scheme, overridden by `spark.txlog.storage.<scheme>.kind`. */
class LogStoreChoiceSuite extends AnyFunSuite with txlog.testing.Claimed {
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
    assert(bad.errorClass === "INVALID_SETTING")
    val local = intercept[TxlogException](
      storeFor("s3a://b/t", "spark.txlog.storage.s3a.kind" -> "local")
    )
    assert(local.errorClass === "INVALID_SETTING")
  }

  test("the rename kind where rename is not known atomic: STORAGE_NOT_ATOMIC unless declared") {
    val abfs = "abfss://c@a.dfs.core.windows.net/t/_delta_log"
    val kind = "spark.txlog.storage.abfss.kind" -> "rename"
    val e = intercept[TxlogException](storeFor(abfs, kind).checkPutIfAbsent(new Path(abfs)))
    assert(e.errorClass === "STORAGE_NOT_ATOMIC" && e.getMessage.contains("atomicRenameSchemes"))
    storeFor(abfs, kind, "spark.txlog.storage.atomicRenameSchemes" -> "abfss")
      .checkPutIfAbsent(new Path(abfs))
    storeFor(abfs, kind, "spark.txlog.storage.singleWriter" -> "true")
      .checkPutIfAbsent(new Path(abfs))
    storeFor("hdfs://nn:8020/t/_delta_log").checkPutIfAbsent(
      new Path("hdfs://nn:8020/t/_delta_log")
    )
  }

  test("viewfs:// publishes as its mount target does: a local mount with the local store") {
    val local = txlog.testing.TempDirs.create("viewfs-mount")
    val c = new Configuration()
    c.set("fs.viewfs.mounttable.txl.link./data", local.toUri.toString)
    c.set("fs.viewfs.impl.disable.cache", "true")
    val dir = new Path("viewfs://txl/data/t/_delta_log")
    val fs = dir.getFileSystem(c)
    val store = LogStores.forPath(fs, dir)
    assert(store.isInstanceOf[MountedLogStore], store)
    store.checkPutIfAbsent(dir)
    val v0 = new Path(dir, "00000000000000000000.json")
    assert(store.putIfAbsent(v0, "first".getBytes("UTF-8")))
    assert(!store.putIfAbsent(v0, "second".getBytes("UTF-8")))
    val onDisk = local.resolve("t/_delta_log/00000000000000000000.json")
    assert(new String(java.nio.file.Files.readAllBytes(onDisk), "UTF-8") === "first")
    // A mount of storage without atomic publishing is refused, as that storage is.
    // (objn: an object store without a conditional create, see ObjectStoreLikeFileSystem.)
    val objects = txlog.testing.TempDirs.create("viewfs-objects")
    ObjectStoreLikeFileSystem.register(c)
    c.set("fs.viewfs.mounttable.txl2.link./data", s"objn://${objects.toUri.getPath}")
    val other = new Path("viewfs://txl2/data/t/_delta_log")
    val e = intercept[TxlogException] {
      LogStores.forPath(other.getFileSystem(c), other).checkPutIfAbsent(other)
    }
    assert(e.errorClass === "STORAGE_NOT_ATOMIC", e)
  }
}
