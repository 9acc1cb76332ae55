package txlog.python

import java.util.{Map => JMap}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper

import txlog.util.{OptionValues, PlainJson}

/** The conversions every part of [[PythonFacade]] applies to what py4j hands it: maps, whole
  * numbers as text, JSON answers.
  */
private[txlog] trait FacadeArgs {
  protected val mapper = new ObjectMapper()

  /** `value` as JSON, in parts when it is too long for one py4j answer ([[PythonText]]). */
  protected def text(value: AnyRef): AnyRef = PythonText.of(PlainJson.write(value))

  protected def asScala(m: JMap[String, String]): Map[String, String] =
    Option(m).map(_.asScala.toMap).getOrElse(Map.empty)

  /** `json` parsed, or null when it is not JSON (null text is `orElse`). */
  protected def tree(json: String, orElse: String = ""): com.fasterxml.jackson.databind.JsonNode =
    try mapper.readTree(Option(json).getOrElse(orElse))
    catch { case _: java.io.IOException => null }

  /** `json`, a JSON array of strings (column names), or INVALID_ARGUMENT naming `name`. */
  protected def names(name: String, json: String): Seq[String] = {
    val node = tree(json, "[]")
    if (node == null || !node.isArray || !node.elements().asScala.forall(_.isTextual)) {
      throw txlog.errors.TxlogErrors.invalidArgument(name, "must be a JSON array of column names")
    }
    node.elements().asScala.map(_.asText).toSeq
  }

  /** `text` as a non-negative whole number, or INVALID_ARGUMENT naming `name`. */
  protected def wholeNumber(name: String, text: String): Long = OptionValues.wholeNumber(name, text)
}
