package txlog.sql

import java.nio.file.{Files, Path}

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.Row

import txlog.SparkSuite
import txlog.testing.DeltaRsScript

/** The txlog tables a parity suite's tests checked, each at the version whose rows equalled
  * delta-spark's ([[SqlPair.sameRows]]), read again by delta-rs when the suite's tests are done:
  * every table txlog wrote must give delta-rs delta-spark's rows too. One Python process reads them
  * all (`tests/scripts/delta_rs_table.py rows`). A suite holds one; its bound is the rows its own
  * tests checked (a few dozen per table).
  */
final class DeltaRsReadBack {
  private val tables = mutable.ArrayBuffer.empty[(String, Long, Seq[String])]

  /** The txlog table at `path` holds `rows` (delta-spark's) at `version`. */
  def add(path: String, version: Long, rows: Seq[Row]): Unit = synchronized {
    tables += ((path, version, rows.map(_.json)))
  }

  def isEmpty: Boolean = synchronized(tables.isEmpty)

  /** Has delta-rs read every table added, in `dir`: (tables, rows) read; fails naming each table
    * whose rows differ from delta-spark's, or that delta-rs refuses.
    */
  def check(dir: Path): (Int, Long) = {
    val json = new ObjectMapper()
    val listing = json.createArrayNode()
    synchronized(tables.toList).foreach { case (path, version, rows) =>
      val t = listing.addObject().put("path", path).put("version", version)
      val array = t.putArray("rows")
      rows.foreach(r => array.add(r))
    }
    val file = dir.resolve("tables.json")
    Files.write(file, json.writeValueAsBytes(listing))
    val answer = json.readTree(DeltaRsScript.run(Seq("rows" -> file.toString)))
    val differ = answer.get("differ").elements().asScala.map(_.toString).toSeq
    assert(differ.isEmpty, s"delta-rs reads other rows than delta-spark:\n${differ.mkString("\n")}")
    (answer.get("tables").asInt, answer.get("rows").asLong)
  }
}

/** A parity suite whose txlog tables delta-rs reads back: `readBack` goes to its pairs, and the
  * suite declares [[deltaRsReadsEveryTable]] after its other tests.
  */
trait DeltaRsReadsBack extends SparkSuite {
  protected val readBack = new DeltaRsReadBack

  /** Declares the test that has delta-rs read every table the tests before it checked.
    *
    * {{{
    * deltaRsReadsEveryTable() // the suite's last line
    * }}}
    */
  protected def deltaRsReadsEveryTable(): Unit =
    test("delta-rs reads every txlog table the tests above checked, with delta-spark's rows") {
      assume(DeltaRsScript.available, DeltaRsScript.skipMessage)
      if (readBack.isEmpty) cancel("no txlog table at a path of its own was checked in this run")
      val (n, rows) = readBack.check(tempDir("delta-rs-rows"))
      info(s"delta-rs read $n table versions, $rows rows, as delta-spark did")
    }
}
