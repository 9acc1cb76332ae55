package txlog

import scala.util.Success

import txlog.tools.SnapshotReport

/** The demo table shipped in examples/ (present in every clone) reads as delta-spark reads it. */
class DemoTableSuite extends SparkSuite {
  private val demo = java.nio.file.Paths.get("examples", "tables", "demo").toAbsolutePath.toString

  test("every version of the demo table agrees with delta-spark") {
    Oracle.bothAt(spark, demo, 0L to 9L).foreach { case (v, ours, ref) =>
      assert(ref.isSuccess, s"delta-spark reads version $v")
      assert(ours === ref, s"version $v")
    }
    val latest = DeltaLog.forTable(spark, demo).snapshot()
    assert(latest.version === 9 && latest.checkpointVersion === Some(5L))
    assert(latest.protocol.hasReaderFeature("deletionVectors"))
    assert(latest.allFiles.where("deletionVector IS NOT NULL").count() === 1)
  }

  test("the snapshot report shows the summary, the history and a time-travelled version") {
    val report = SnapshotReport.render(spark, demo, Some(2L))
    assert(report.contains("version            9"))
    // Whole lines: the summary's margins are stripped (a line began "       |checkpoint" once).
    val lines = report.linesIterator.toSeq
    assert(lines.contains("checkpoint         version 5"), report)
    assert(lines.exists(_.startsWith("protocol           reader 3, writer 7")), report)
    assert(report.contains("== Time travel to version 2"))
    assert(report.contains("OPTIMIZE"))
    assert(report.contains("deletionVectors"))
    assert(report.contains("files              6 live"))
  }
}
