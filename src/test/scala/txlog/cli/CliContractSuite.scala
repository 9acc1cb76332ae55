package txlog.cli

import java.io.{ByteArrayOutputStream, PrintStream}
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.{ArrayNode, ObjectNode}

import txlog.SparkSuite
import txlog.cli.Main

/** The command line's contract, command by command: every command with `--json` on a good, a
  * missing, a corrupt and an unsupported table, and with an unknown option, prints exactly one JSON
  * document per table whose keys are snake_case and which always has `table`, `command`, `dry_run`,
  * `exit_code` and `retryable`; the process's exit code is the document's; failures carry
  * `error.error_class`. The expected codes are the contract's (0 done, 1 findings, 2 usage, 3
  * refused, 5 other failure), written out per command below.
  */
class CliContractSuite extends SparkSuite {
  private val mapper = new ObjectMapper()

  /** Every command, with the arguments it needs to run on the good table (dry runs where the
    * command deletes or commits, so that the good table stays as it is).
    */
  private val commands: Seq[(String, Seq[String])] = Seq(
    "describe" -> Nil,
    "history" -> Seq("--limit", "2"),
    "checkpoint" -> Seq("--dry-run"),
    "checksum" -> Seq("--dry-run"),
    "compact-log" -> Seq("--start", "0", "--end", "1", "--dry-run"),
    "cleanup" -> Nil,
    "vacuum" -> Nil,
    "restore" -> Seq("--version", "0", "--dry-run"),
    "repair" -> Nil,
    "validate" -> Nil
  )

  /** Values that are data keyed by names from the log (table properties, operation parameters and
    * metrics), not the contract's keys.
    */
  private val DataKeyed = Set("properties", "operation_parameters", "operation_metrics")

  private def run(args: Seq[String]): (Int, Seq[JsonNode], String) = {
    val (out, err) = (new ByteArrayOutputStream(), new ByteArrayOutputStream())
    val code = Main.run(spark, args, new PrintStream(out, true, "UTF-8"), new PrintStream(err))
    val docs = out.toString("UTF-8").split("\n").toSeq.filter(_.nonEmpty).map(mapper.readTree)
    (code, docs, err.toString("UTF-8"))
  }

  /** Keys not in snake_case, with where they are. */
  private def badKeys(n: JsonNode, at: String): Seq[String] = n match {
    case o: ObjectNode =>
      o.fields().asScala.toSeq.flatMap { e =>
        val here = if (e.getKey.matches("[a-z][a-z0-9_]*")) Nil else Seq(s"$at.${e.getKey}")
        here ++ (if (DataKeyed(e.getKey)) Nil else badKeys(e.getValue, s"$at.${e.getKey}"))
      }
    case a: ArrayNode => a.elements().asScala.toSeq.flatMap(badKeys(_, s"$at[]"))
    case _            => Nil
  }

  /** Runs `command` on `table` and checks the document's shape; returns (exit code, error class).
    */
  private def check(command: String, extra: Seq[String], table: String): (Int, Option[String]) = {
    val args = Seq(command, "--table", table, "--json") ++ extra
    val (code, docs, err) = run(args)
    val what = args.mkString(" ")
    assert(docs.size === 1, s"$what: ${docs.size} documents; stderr: $err")
    val doc = docs.head
    Seq("table", "command", "dry_run", "exit_code", "retryable").foreach { k =>
      assert(doc.has(k), s"$what: no '$k' in $doc")
    }
    assert(badKeys(doc, "") === Nil, s"$what: keys not in snake_case")
    assert(doc.get("exit_code").asInt === code, what)
    assert(doc.get("retryable").asBoolean === (code == 4), what)
    assert(doc.get("command").asText === command, what)
    val error = Option(doc.get("error")).map(_.get("error_class").asText)
    assert(error.isDefined === (code >= 2), s"$what: exit $code, error $error")
    (code, error)
  }

  /** A table delta-spark writes: v0 4 rows, v1 an append, v2 a delete. */
  private lazy val good: Path = {
    val t = tempDir("contract").resolve("good")
    spark.range(0, 4).write.format("delta").save(t.toString)
    spark.range(4, 6).write.format("delta").mode("append").save(t.toString)
    spark.sql(s"DELETE FROM delta.`$t` WHERE id = 1")
    t
  }

  private def copyOfGood(name: String): Path = {
    val to = tempDir("contract").resolve(name)
    Files.walk(good).iterator().asScala.toSeq.foreach { f =>
      Files.copy(f, to.resolve(good.relativize(f).toString))
    }
    to
  }

  private def logFile(t: Path, v: Long): Path = t.resolve(f"_delta_log/$v%020d.json")

  test("a good table: every command exits 0 with its document") {
    val results = commands.map { case (c, extra) => c -> check(c, extra, good.toString) }
    assert(results.filter(_._2._1 != 0) === Nil)
  }

  test("a missing table: every command exits 5 with DELTA_TABLE_NOT_FOUND") {
    val missing = tempDir("contract").resolve("nothing").toString
    commands.foreach { case (c, extra) =>
      assert(check(c, extra, missing) === (5, Some("DELTA_TABLE_NOT_FOUND")), c)
    }
  }

  test("a corrupt commit: validate and repair report it (exit 1); the others fail with exit 5") {
    val t = copyOfGood("corrupt")
    Files.writeString(logFile(t, 1), "{\"add\": {\"path\": \n")
    commands.foreach { case (c, extra) =>
      val (code, error) = check(c, extra, t.toString)
      if (Set("validate", "repair")(c)) assert((code, error) === (1, None), c)
      else {
        assert(code === 5, c)
        assert(error === Some("MALFORMED_LOG_FILE"), c)
      }
    }
  }

  test("an unsupported reader feature: every command exits 3 and names it") {
    val t = copyOfGood("unsupported")
    Files.writeString(
      logFile(t, 3),
      """{"commitInfo":{"timestamp":1700000000000,"operation":"UPGRADE PROTOCOL"}}""" + "\n" +
        """{"protocol":{"minReaderVersion":3,"minWriterVersion":7,""" +
        """"readerFeatures":["futureFeature"],"writerFeatures":["futureFeature"]}}""" + "\n"
    )
    commands.foreach { case (c, extra) =>
      assert(check(c, extra, t.toString) === (3, Some("UNSUPPORTED_READER_FEATURES")), c)
    }
  }

  test("an unknown option: every command exits 2 with one INVALID_ARGUMENT document") {
    commands.foreach { case (c, extra) =>
      assert(check(c, extra :+ "--frobnicate", good.toString) === (2, Some("INVALID_ARGUMENT")))
    }
    val (code, Seq(doc), _) = run(Seq("describe", "--json"))
    assert(code === 2 && doc.get("table").isNull)
    assert(doc.get("error").get("message").asText.contains("--table"))
  }
}
