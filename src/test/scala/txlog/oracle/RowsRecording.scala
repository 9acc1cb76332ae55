package txlog.oracle

import java.nio.charset.StandardCharsets.UTF_8
import java.security.MessageDigest

import scala.io.Source
import scala.jdk.CollectionConverters._
import scala.util.{Failure, Success, Try}

import com.fasterxml.jackson.databind.JsonNode
import org.apache.spark.sql.{DataFrame, SparkSession}

import txlog.Fixtures
import txlog.scan.Rows

/** The rows of a table at one version as a reader gave them: column names and types, the number of
  * rows and a digest of them (SHA-256 of the sorted rows' text, [[Rows]]), and the first sorted
  * rows for a readable difference.
  */
final case class RowsAnswer(schema: Seq[String], count: Long, digest: String, head: Seq[String])

object RowsAnswer {
  val HeadRows = 8

  def of(df: DataFrame): RowsAnswer = {
    val rows = Rows.sorted(df)
    RowsAnswer(Rows.schema(df), rows.size.toLong, digest(rows), rows.take(HeadRows))
  }

  def digest(rows: Seq[String]): String = {
    val md = MessageDigest.getInstance("SHA-256")
    rows.foreach { r => md.update(r.getBytes(UTF_8)); md.update('\n'.toByte) }
    md.digest().map("%02x".format(_)).mkString
  }

  /** delta-spark's rows of a fixture table now (`spark.read.format("delta")`). */
  def deltaSpark(spark: SparkSession, table: String, version: Option[Long]): Try[RowsAnswer] =
    Try {
      val reader = spark.read.format("delta")
      val at = version.fold(reader)(v => reader.option("versionAsOf", v))
      of(at.load(Fixtures.path(table)))
    }
}

/** delta-spark's rows of the fixtures, recorded by `make oracle-record` ([[RecordRows]]) into
  * `src/test/resources/oracle/delta-spark-<version>-rows.jsonl`, stamped as [[Recording]] is:
  * usable only with the delta-spark and the fixtures it was made of. Each entry is a table and a
  * version (null: the latest) with a [[RowsAnswer]] or delta-spark's refusal (its message's first
  * line).
  */
final class RowsRecording(answers: Map[(String, Option[Long]), JsonNode]) {

  def keys: Seq[(String, Option[Long])] = answers.keys.toSeq.sortBy(k => (k._1, k._2))

  def answer(table: String, version: Option[Long]): Try[RowsAnswer] =
    answers.get((table, version)) match {
      case None =>
        throw new NoSuchElementException(
          s"no recorded delta-spark rows for $table at ${version.fold("latest")("v" + _)}: " +
            Recording.Hint
        )
      case Some(a) if a.has("rows") =>
        val r = a.get("rows")
        Success(
          RowsAnswer(
            r.get("schema").elements().asScala.map(_.asText).toSeq,
            r.get("count").asLong,
            r.get("digest").asText,
            r.get("head").elements().asScala.map(_.asText).toSeq
          )
        )
      case Some(a) => Failure(new RecordedRowsRefusal(a.get("refusal").asText))
    }
}

/** delta-spark refused to read the rows; the message is the first line of its error. */
final class RecordedRowsRefusal(message: String) extends Exception(message)

object RowsRecording {

  def resourceName(version: String = Recording.oracleVersion): String =
    s"oracle/delta-spark-$version-rows.jsonl"

  def encode(table: String, version: Option[Long], answer: Try[RowsAnswer]): String = {
    val o = ViewCodec.mapper.createObjectNode()
    o.put("table", table)
    version.fold(o.putNull("version"))(v => o.put("version", v))
    answer match {
      case Success(a) =>
        val r = o.putObject("rows")
        val s = r.putArray("schema")
        a.schema.foreach(s.add)
        r.put("count", a.count).put("digest", a.digest)
        val h = r.putArray("head")
        a.head.foreach(h.add)
      case Failure(e) =>
        o.put("refusal", String.valueOf(e.getMessage).linesIterator.take(1).mkString.take(300))
    }
    ViewCodec.mapper.writeValueAsString(o)
  }

  private lazy val loaded: Try[RowsRecording] = Try {
    val in = getClass.getClassLoader.getResourceAsStream(resourceName())
    if (in == null) {
      throw new IllegalStateException(
        s"no recording of delta-spark ${Recording.oracleVersion}'s rows (src/test/resources/" +
          s"${resourceName()}): ${Recording.Hint}"
      )
    }
    val text =
      try Source.fromInputStream(in, UTF_8.name).getLines().filter(_.nonEmpty).toVector
      finally in.close()
    val header = ViewCodec.mapper.readTree(text.head)
    val recorded = header.get("oracleVersion").asText
    if (recorded != Recording.oracleVersion) {
      throw new IllegalStateException(
        s"the rows recording holds delta-spark $recorded's answers, the oracle here is " +
          s"${Recording.oracleVersion}: ${Recording.Hint}"
      )
    }
    Recording.verifyStamp(header, Fixtures.root)
    val answers = text.tail
      .map(l => ViewCodec.mapper.readTree(l))
      .map { a =>
        val v = a.get("version")
        (a.get("table").asText, if (v.isNull) None else Some(v.asLong)) -> a
      }
      .toMap
    new RowsRecording(answers)
  }

  /** The recording for the running oracle and the shared fixtures (read and checked once). */
  def current: RowsRecording = loaded.get

}
