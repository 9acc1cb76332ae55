package txlog.python

import java.util.{Map => JMap}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper

import txlog.util.OptionValues

/** The conversions every part of [[PythonFacade]] applies to what py4j hands it: maps, whole
  * numbers as text, JSON answers.
  */
private[python] trait FacadeArgs {
  protected val mapper = new ObjectMapper()

  /** `value` as JSON, in parts when it is too long for one py4j answer ([[PythonText]]). */
  protected def text(value: AnyRef): AnyRef = PythonText.of(mapper.writeValueAsString(value))

  protected def asScala(m: JMap[String, String]): Map[String, String] =
    Option(m).map(_.asScala.toMap).getOrElse(Map.empty)

  /** `text` as a non-negative whole number, or INVALID_ARGUMENT naming `name`. */
  protected def wholeNumber(name: String, text: String): Long = OptionValues.wholeNumber(name, text)
}
