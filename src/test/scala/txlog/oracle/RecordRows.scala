package txlog.oracle

import java.nio.file.Paths

import txlog.{Fixtures, TestSpark}

/** Records delta-spark's rows of the shared fixtures ([[RowsRecording]]): every table at its latest
  * version and at every version its `_delta_log` names. `make oracle-record` runs it on each Spark
  * line whose oracle `make test` reads (`Test/runMain txlog.oracle.RecordRows [root]`).
  */
object RecordRows {

  def main(args: Array[String]): Unit = {
    val base = Paths.get(args.headOption.getOrElse(".")).toAbsolutePath.normalize
    require(Fixtures.available, Fixtures.skipMessage)
    val spark = TestSpark.open(Map.empty)
    val tables = Recording.tablesUnder(Fixtures.root)
    val entries = tables.flatMap { t =>
      val versions = None +: RecordOracles.loggedVersions(Fixtures.root.resolve(t)).map(Some(_))
      versions.map(v => RowsRecording.encode(t, v, RowsAnswer.deltaSpark(spark, t, v)))
    }
    val out = base.resolve("src/test/resources").resolve(RowsRecording.resourceName())
    Recording.write(out, spark, entries)
    System.err.println(s"recorded ${entries.size} delta-spark row answers in $out")
    TestSpark.close(spark)
  }
}
