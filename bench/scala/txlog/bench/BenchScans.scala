package txlog.bench

import java.nio.file.Path

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.execution.FileSourceScanExec

import txlog.DeltaLog

/** W12 and W13 through txlog's Scala API, as bench/worker.py's `plan_partition`, `plan_data` and
  * `read_rows`: a scan planned from the table's path (the files a filtered query would read, none
  * read), and a full read aggregated over every column. Each run is checked: the scan against
  * `scans.json` beside the manifest (bench/scans.py), the read against the manifest's `answer`
  * (bench/dv_table.py).
  */
final class BenchScans(spark: SparkSession) {
  import BenchScans._
  import BenchTasks.timed

  /** W12: the files the scan `which` (`partition` or `data`) selects. */
  def plan(table: Path, which: String): Run = {
    val scan = mapper.readTree(table.getParent.resolve("scans.json").toFile).get("scans").get(which)
    val where = scan.get("where").asText
    val (selected, run) = timed(
      selectedFiles(
        DeltaLog
          .forTable(spark, table.toString)
          .read()
          .where(where)
      )
    )
    val want = (scan.get("num_files").asLong, scan.get("size_in_bytes").asLong)
    if (selected != want) {
      throw new Mismatch(s"$which scan selected $selected (files, bytes), expected $want")
    }
    run
  }

  /** W13: the manifest's `aggregate` over every row of the latest version. */
  def readRows(table: Path): Run = {
    val manifest = mapper.readTree(table.getParent.resolve("manifest.json").toFile)
    val aggregate = manifest.get("aggregate").elements().asScala.map(_.asText).toSeq
    val (row, run) =
      timed(DeltaLog.forTable(spark, table.toString).read().selectExpr(aggregate: _*).head())
    check(row, manifest.get("answer"))
    run
  }
}

object BenchScans {
  private val mapper = new ObjectMapper()

  /** The tasks, as bench/worker.py names them. */
  val names: Seq[String] = Seq("plan_partition", "plan_data", "read_rows")

  /** The count and total size of the files the DataFrame's file scan selects (its physical plan's
    * `selectedPartitions`, before adaptive execution wraps it), as bench/engines/spark.py's
    * `selected_files`.
    */
  def selectedFiles(df: DataFrame): (Long, Long) = {
    val scans = df.queryExecution.sparkPlan.collectLeaves().collect { case s: FileSourceScanExec =>
      s
    }
    if (scans.size != 1) throw new Mismatch(s"expected one file scan, found ${scans.size}")
    val listing = scans.head.selectedPartitions
    (listing.totalNumberOfFiles, listing.totalFileSize)
  }

  /** Each field of `row` equals the manifest's answer (numbers as numbers, dates as ISO text). */
  private def check(row: Row, answer: JsonNode): Unit = {
    val got = row.schema.fieldNames.toSeq.map(f => f -> row.getAs[Any](f))
    val ok = got.forall { case (name, v) =>
      val want = answer.get(name)
      v match {
        case n: java.lang.Number => want != null && want.isNumber && want.asDouble == n.doubleValue
        case d: java.time.LocalDate => want != null && want.asText == d.toString
        case d: java.sql.Date       => want != null && want.asText == d.toString
        case other                  => want != null && want.asText == String.valueOf(other)
      }
    } && got.size == answer.size
    if (!ok) throw new Mismatch(s"read ${got.mkString(", ")}, expected $answer")
  }
}
