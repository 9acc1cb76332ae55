package txlog.cli

import java.io.PrintStream

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.core.JsonGenerator
import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.DataFrame

/** Writes one table's outcome to stdout: a JSON document (one line) or text. Rows are streamed
  * partition by partition (`toLocalIterator`), never collected at once; their columns are named in
  * snake_case ([[SnakeCase]]), as the fields are.
  */
private[txlog] final class Output(out: PrintStream, json: Boolean) {
  private val mapper = new ObjectMapper()
    .configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false)

  /** Whether a document was begun and not ended (a failure while its rows streamed). */
  private var open = false

  /** Writes one document; one that a failure cut short is first ended with a line break, so that
    * the next (the error's) is on a line of its own.
    */
  def write(head: Seq[(String, Any)], outcome: Outcome): Unit = {
    if (open) { out.print("\n"); out.flush() }
    open = true
    val named = outcome.copy(rows = outcome.rows.map { case (k, df) => k -> SnakeCase.of(df) })
    if (json) writeJson(head ++ named.fields, named.rows, named.firstColumnOnly)
    else writeText(head, named)
    open = false
  }

  private def writeJson(
      fields: Seq[(String, Any)],
      rows: Option[(String, DataFrame)],
      firstColumnOnly: Boolean
  ): Unit = {
    val gen = mapper.getFactory.createGenerator(out)
    gen.writeStartObject()
    fields.foreach { case (k, v) => gen.writeFieldName(k); mapper.writeValue(gen, v) }
    rows.foreach { case (name, df) =>
      gen.writeArrayFieldStart(name)
      df.toLocalIterator().asScala.foreach { r =>
        if (firstColumnOnly) mapper.writeValue(gen, r.get(0))
        else gen.writeTree(mapper.readTree(r.json))
      }
      gen.writeEndArray()
    }
    gen.writeEndObject()
    gen.flush()
    out.print("\n")
    out.flush()
  }

  private def writeText(head: Seq[(String, Any)], outcome: Outcome): Unit = {
    val (table, command) = (head.toMap.apply("table"), head.toMap.apply("command"))
    out.print(s"== $command $table\n")
    (head.drop(2) ++ outcome.fields).foreach { case (k, v) =>
      v match {
        case m: java.util.Map[_, _] =>
          out.print(s"$k:\n")
          m.asScala.foreach { case (mk, mv) => out.print(f"  $mk%-24s $mv\n") }
        case other => out.print(f"$k%-26s ${String.valueOf(other)}\n")
      }
    }
    outcome.rows.foreach { case (name, df) =>
      out.print(s"$name:\n  ${df.columns.mkString("\t")}\n")
      var n = 0L
      df.toLocalIterator().asScala.foreach { r =>
        n += 1
        out.print("  " + r.toSeq.map(String.valueOf).mkString("\t") + "\n")
      }
      out.print(s"  ($n rows)\n")
    }
    out.flush()
  }
}
