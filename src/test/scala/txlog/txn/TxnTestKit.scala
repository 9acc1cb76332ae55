package txlog.txn

import java.nio.file.{Files, Path => NPath}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.types.StructType

/** Helpers for the transaction suites: file-action DataFrames and raw views of `_delta_log`. */
object TxnTestKit {
  val mapper = new ObjectMapper()
  val schema: StructType = StructType.fromDDL("id LONG, part STRING")

  /** Adds of `paths` (size 100 + index, partition part=p). */
  def adds(spark: SparkSession, paths: Seq[String], part: String = "a"): DataFrame = {
    import spark.implicits._
    paths.zipWithIndex
      .map { case (p, i) => (p, 100L + i, Map("part" -> part), 1700000000000L, true) }
      .toDF("path", "size", "partitionValues", "modificationTime", "dataChange")
  }

  def removes(spark: SparkSession, paths: Seq[String]): DataFrame = {
    import spark.implicits._
    paths.map(p => (p, true)).toDF("path", "dataChange")
  }

  def logDir(table: NPath): NPath = table.resolve("_delta_log")

  /** The parsed lines of commit `v`. */
  def commitLines(table: NPath, v: Long): Seq[JsonNode] =
    Files
      .readAllLines(logDir(table).resolve(f"$v%020d.json"))
      .asScala
      .filter(_.trim.nonEmpty)
      .map(mapper.readTree)
      .toSeq

  /** Every file of `_delta_log` (names, hidden ones and directories included) with its bytes. */
  def snapshotDir(table: NPath): Map[String, Seq[Byte]] = {
    val s = Files.walk(logDir(table))
    try
      s.iterator()
        .asScala
        .map { p =>
          val rel = logDir(table).relativize(p).toString
          rel -> (if (Files.isDirectory(p)) Seq.empty[Byte] else Files.readAllBytes(p).toSeq)
        }
        .toMap
    finally s.close()
  }
}
