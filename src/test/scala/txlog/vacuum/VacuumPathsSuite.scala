package txlog.vacuum

import java.nio.file.{Files, Path}

import org.apache.spark.sql.functions.typedLit

import txlog.{DeltaLog, SparkSuite, TxlogException}
import txlog.txn.TxnTestKit

/** VACUUM qualifies the paths of the log before comparing them with the table root: a live file
  * named with another spelling of the root is kept, and a path on a store the root's cannot be
  * related to stops the vacuum before anything is deleted. delta-spark is the oracle for what may
  * go: txlog never deletes a file delta-spark keeps.
  */
class VacuumPathsSuite extends SparkSuite with VacuumTestKit {
  override def extraConf: Map[String, String] = vacuumConf
  private val Day = 24L * 3600 * 1000

  /** A table delta-spark writes (one append), then adds of `names` committed by txlog; every file
    * under the table aged a month.
    */
  private def tableWith(names: Path => Seq[String]): Path = {
    val t = tempDir("vpaths").resolve("t")
    val adds = TxnTestKit
      .adds(spark, names(t))
      .drop("partitionValues")
      .withColumn("partitionValues", typedLit(Map.empty[String, String]))
    spark.range(0, 5).write.format("delta").save(t.toString)
    DeltaLog.forTable(spark, t.toString).startTransaction().addFiles(adds).commit()
    ageAll(t, 30 * Day)
  }

  private def vacuum(t: Path, dryRun: Boolean, allow: Boolean = false) =
    DeltaLog
      .forTable(spark, t.toString)
      .vacuum(Some(0.0), dryRun = dryRun, force = true, allowUnrelatedPaths = allow)

  test("live files named with another spelling of the root are kept (file://localhost, '..')") {
    val t = tableWith(dir =>
      Seq(s"file://localhost${dir.toUri.getPath}/b.parquet", "sub/../c.parquet", "d%20e.parquet")
    )
    Seq("b.parquet", "c.parquet", "d e.parquet", "orphan.parquet").foreach { n =>
      write(t.resolve(n), n)
    }
    ageAll(t, 30 * Day)
    val dry = vacuum(t, dryRun = true)
    val ours =
      try dry.files.collect().map(_.getAs[String]("path")).toSet
      finally dry.unpersist()
    assert(ours === Set("orphan.parquet"))
    // delta-spark cannot relate file://localhost to the root: it refuses, deleting nothing.
    val ref = refDryRun(t, Some(0))
    assert(ref.failed.get.getMessage.contains("DELTA_FAIL_RELATIVIZE_PATH"), ref)
    vacuum(t, dryRun = false).unpersist()
    Seq("b.parquet", "c.parquet", "d e.parquet").foreach(n => assert(Files.exists(t.resolve(n)), n))
    assert(!Files.exists(t.resolve("orphan.parquet")))
  }

  test("a path on another store: VACUUM_UNRELATED_PATHS before anything is deleted") {
    val t = tableWith(_ => Seq("s3a://bucket/t/x.parquet"))
    write(t.resolve("orphan.parquet"), "o")
    ageAll(t, 30 * Day)
    val versionBefore = latestVersion(t)
    Seq(true, false).foreach { dryRun =>
      val e = intercept[TxlogException](vacuum(t, dryRun))
      assert(e.errorClass === "VACUUM_UNRELATED_PATHS")
      assert(e.getMessage.contains("s3a://bucket/t/x.parquet"), e.getMessage)
    }
    assert(Files.exists(t.resolve("orphan.parquet")))
    assert(latestVersion(t) === versionBefore, "no VACUUM START was committed")
    // delta-spark cannot relate it either.
    val ref = refDryRun(t, Some(0))
    assert(ref.failed.get.getMessage.contains("DELTA_FAIL_RELATIVIZE_PATH"), ref)
    val r = vacuum(t, dryRun = false, allow = true)
    try {
      assert(r.numDeletedFiles === 1)
      assert(r.numSkippedPaths === 1)
      assert(r.skippedPathExamples.exists(_.contains("s3a://bucket/t/x.parquet")))
    } finally r.unpersist()
    assert(!Files.exists(t.resolve("orphan.parquet")))
  }

  test("a simple relative path is placed as qualifying it would place it") {
    val roots = Seq("file:/data/t", "s3a://bucket/t", "file:/data/a b/t%20x", "abfss://c@a.dfs/t")
    val simple = Seq(
      "part-0.parquet",
      "date=2024-01-01/part=3/part-00001-c000.snappy.parquet",
      "p=a b/x.parquet",
      "a+b/c=d e/f_g-h.parquet",
      "deletion_vector_0b0e0e3c.bin",
      "x..y/z.parquet"
    )
    for (r <- roots; p <- simple) {
      assert(TableRoot.simple(p), p)
      assert(TableRoot(r).parsed(p) === TableRoot.Inside(p), s"$r $p")
      assert(TableRoot(r).place(p) === TableRoot.Inside(p))
    }
    val parsed = Seq(
      "",
      "/a.parquet",
      "./a.parquet",
      "a/./b",
      "a/../b",
      "../a",
      "a//b",
      "a/",
      ".hidden",
      "a/.b",
      "a%20b",
      "s3a://bucket/t/a",
      "a:b",
      "a#b",
      "a?b",
      "a\\b",
      "\u00e9.parquet"
    )
    parsed.foreach(p => assert(!TableRoot.simple(p), p))
  }

  test("spellings of an object store root: s3, s3n and s3a name one bucket") {
    val root = TableRoot("s3a://bucket/t")
    import TableRoot.{Inside, Outside, Unrelated}
    assert(root.place("s3://bucket/t/x.parquet") === Inside("x.parquet"))
    assert(root.place("s3n://bucket/t/p=1/x.parquet") === Inside("p=1/x.parquet"))
    assert(root.place("S3A://BUCKET/t/x.parquet") === Inside("x.parquet"))
    assert(root.place("s3a://bucket/t/a/../x.parquet") === Inside("x.parquet"))
    assert(root.place("/t/x.parquet") === Inside("x.parquet"))
    assert(root.place("x%20y.parquet") === Inside("x y.parquet"))
    assert(root.place("s3a://bucket/t2/x.parquet").isInstanceOf[Outside])
    assert(root.place("../x.parquet").isInstanceOf[Outside])
    assert(root.place("s3a://bucket/t").isInstanceOf[Outside])
    assert(root.place("s3a://other/t/x.parquet").isInstanceOf[Unrelated])
    assert(root.place("gs://bucket/t/x.parquet").isInstanceOf[Unrelated])
    assert(root.place("file:/t/x.parquet").isInstanceOf[Unrelated])
    val local = TableRoot("file:/data/t")
    assert(local.place("file:///data/t/x.parquet") === Inside("x.parquet"))
    assert(local.place("file://localhost/data/t/x.parquet") === Inside("x.parquet"))
    assert(local.place("file://otherhost/data/t/x.parquet").isInstanceOf[Unrelated])
    assert(local.place("hdfs://nn:8020/data/t/x.parquet").isInstanceOf[Unrelated])
  }
}
